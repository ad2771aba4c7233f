import Dispatch
import RealtimeTestSupport
import Synchronization
import RealtimeIO
import Testing
@_spi(Transport) @testable import RealtimeCore

/// The batch paths of ``BoundedChannel``: `send(contentsOf:)`, `send(draining:)`, and the
/// consumer's private batch (taken in one lock), which must keep order, lose nothing, count
/// against the capacity and still signal demand at half capacity.
@Suite(.timeLimit(.minutes(1))) struct BoundedChannelBatchTests {
    @Test func batchesAndSinglesKeepOrder() async {
        let ch = BoundedChannel<Int>(capacity: 100)
        #expect(ch.send(contentsOf: 0..<3))
        #expect(ch.send(3))
        var more = [4, 5, 6]
        #expect(ch.send(draining: &more))
        #expect(more.isEmpty)
        #expect(ch.send(contentsOf: [Int]()))
        var none: [Int] = []
        #expect(ch.send(draining: &none))
        #expect(await ch.next() == 0)  // the consumer now holds 1...6 in its batch
        var late = [7, 8]
        #expect(ch.send(draining: &late))  // shared buffer empty again: storage is traded
        #expect(late.isEmpty)
        #expect(ch.send(contentsOf: [9]))  // appended behind 7, 8
        #expect(ch.bufferedCount == 9)
        ch.finish()
        var got: [Int] = []
        for await x in ch { got.append(x) }
        #expect(got == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        var afterFinish = [10]
        #expect(ch.send(draining: &afterFinish))  // discarded, never a pause request
        #expect(afterFinish.isEmpty)
        #expect(ch.bufferedCount == 0)
    }

    @Test func batchSendSignalsPauseAtCapacity() {
        let ch = BoundedChannel<Int>(capacity: 4)
        #expect(ch.send(contentsOf: 0..<3))
        #expect(ch.send(contentsOf: 3..<6) == false)  // enqueued whole, never dropped
        #expect(ch.bufferedCount == 6)
        var more = [6]
        #expect(ch.send(draining: &more) == false)
        #expect(ch.bufferedCount == 7)
    }

    /// What the consumer took but has not consumed still counts, so the bound holds.
    @Test func consumersBatchCountsAgainstCapacity() async {
        let ch = BoundedChannel<Int>(capacity: 4)
        #expect(ch.send(contentsOf: 0..<3))
        #expect(await ch.next() == 0)  // holds 1, 2
        #expect(ch.send(3))  // 3 of 4
        #expect(ch.send(4) == false)  // 4 of 4: pause
    }

    @Test func demandAtHalfWhileConsumerServesItsBatch() async {
        let ch = BoundedChannel<Int>(capacity: 8)
        let demands = Atomic<Int>(0)
        ch.setDemandHandler { demands.add(1, ordering: .relaxed) }
        #expect(ch.send(contentsOf: 0..<10) == false)
        for i in 0..<5 { #expect(await ch.next() == i) }
        let early = demands.load(ordering: .relaxed)
        #expect(early == 0)  // 5 left > 4
        #expect(await ch.next() == 5)
        let atHalf = demands.load(ordering: .relaxed)
        #expect(atHalf == 1)  // 4 left: exactly one demand
        for i in 6..<10 { #expect(await ch.next() == i) }
        let after = demands.load(ordering: .relaxed)
        #expect(after == 1)  // not paused again: no further demand
        #expect(ch.send(contentsOf: 10..<20) == false)  // pause again...
        for i in 10..<16 { #expect(await ch.next() == i) }
        let second = demands.load(ordering: .relaxed)
        #expect(second == 2)  // ...and demand again at half
    }

    @Test func waitingConsumerWakesForABatch() async {
        let ch = BoundedChannel<Int>(capacity: 16)
        let consumer = Task { () -> [Int] in
            var got: [Int] = []
            for await x in ch { got.append(x) }
            return got
        }
        #expect(ch.send(contentsOf: 0..<5))
        var tail = [5, 6]
        #expect(ch.send(draining: &tail))
        ch.finish()
        #expect(await consumer.value == Array(0..<7))
    }

    @Test func terminateDropsTheConsumersBatch() async {
        let ch = BoundedChannel<Int>(capacity: 8)
        let terminations = Atomic<Int>(0)
        ch.setTerminationHandler { terminations.add(1, ordering: .relaxed) }
        #expect(ch.send(contentsOf: 0..<5))
        #expect(await ch.next() == 0)
        ch.terminate()
        ch.terminate()
        #expect(await ch.next() == nil)
        #expect(ch.bufferedCount == 0)
        #expect(ch.send(contentsOf: 5..<9))  // discarded, never a pause request
        #expect(ch.bufferedCount == 0)
        let count = terminations.load(ordering: .relaxed)
        #expect(count == 1)
    }

    @Test func cancellingAWaitingConsumerTerminates() async {
        let ch = BoundedChannel<Int>(capacity: 4)
        let terminated = Atomic<Bool>(false)
        ch.setTerminationHandler { terminated.store(true, ordering: .relaxed) }
        #expect(ch.send(contentsOf: 0..<2))
        let task = Task { () -> [Int?] in
            var got: [Int?] = []
            // Consumes the batch, then waits until cancelled.
            for _ in 0..<3 { got.append(await ch.next()) }
            return got
        }
        // Wait (without sleeping) until the consumer has drained the channel.
        while ch.bufferedCount > 0 { await Task.yield() }
        task.cancel()
        #expect(await task.value == [0, 1, nil])
        let wasTerminated = terminated.load(ordering: .relaxed)
        #expect(wasTerminated)
        #expect(ch.send(contentsOf: [7]))
        #expect(await ch.next() == nil)
    }

    /// `for await` (the iterator's synchronous fast path) stops at cancellation even with
    /// elements still in the consumer's batch, and terminates the channel.
    @Test func iteratorStopsWhenCancelledWithABatchInHand() async {
        let ch = BoundedChannel<Int>(capacity: 64)
        let terminated = Atomic<Bool>(false)
        ch.setTerminationHandler { terminated.store(true, ordering: .relaxed) }
        #expect(ch.send(contentsOf: 0..<10))
        let task = Task { () -> [Int] in
            var got: [Int] = []
            for await x in ch {
                got.append(x)
                if x == 2 {
                    // Spin (no sleep) until the cancellation is visible to this task.
                    while !Task.isCancelled { await Task.yield() }
                }
            }
            return got
        }
        // The consumer holds 3...9 once it has taken 0, 1, 2.
        while ch.bufferedCount > 7 { await Task.yield() }
        task.cancel()
        #expect(await task.value == [0, 1, 2])
        let wasTerminated = terminated.load(ordering: .relaxed)
        #expect(wasTerminated)
        #expect(ch.bufferedCount == 0)
    }

    /// A producer thread that obeys back-pressure against a concurrent consumer: every
    /// element arrives once and in order, and the channel never holds more than the
    /// capacity plus one batch.
    @Test func concurrentProducerObeyingBackPressure() async {
        let capacity = 32
        let maxBatch = 7
        // About 300 pauses and resumptions at this capacity.
        let total = 10_000
        let ch = BoundedChannel<Int>(capacity: capacity)
        let demand = DispatchSemaphore(value: 0)
        ch.setDemandHandler { demand.signal() }
        let peak = LockedValue(0)
        DispatchQueue(label: "producer").async {
            var rng = SeededGenerator(seed: 7)
            var next = 0
            var scratch: [Int] = []
            while next < total {
                let n = min(Int.random(in: 1...maxBatch, using: &rng), total - next)
                let mayContinue: Bool
                switch rng.next() % 3 {
                case 0 where n == 1:
                    mayContinue = ch.send(next)
                case 1:
                    scratch.append(contentsOf: next..<next + n)
                    mayContinue = ch.send(draining: &scratch)
                default:
                    mayContinue = ch.send(contentsOf: next..<next + n)
                }
                next += n
                let buffered = ch.bufferedCount
                peak.withLock { $0 = max($0, buffered) }
                if !mayContinue { demand.wait() }
            }
            ch.finish()
        }
        // The consumer runs on a thread of its own: its ~300 resumptions then never queue
        // behind CPU-bound tests on the two cooperative threads of a loaded two-core machine.
        let consumerLoop = EventLoop(name: "bounded-channel-consumer")
        defer { consumerLoop.shutdown() }
        let (expected, inOrder) = await withTaskExecutorPreference(consumerLoop) {
            var expected = 0
            var inOrder = true
            for await x in ch {
                if x != expected { inOrder = false }
                expected += 1
            }
            return (expected, inOrder)
        }
        #expect(inOrder)
        #expect(expected == total)
        let highest = peak.withLock { $0 }
        #expect(highest <= capacity - 1 + maxBatch)
    }
}

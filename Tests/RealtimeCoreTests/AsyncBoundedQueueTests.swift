import RealtimeCore
import Testing

/// The queue behind a Socket.IO client's events and a GraphQL subscription's results: order,
/// the bound (the producer waits once the queue is full, until the consumer is down to half),
/// the end after what is queued, an error thrown once, cancel dropping what is queued and
/// releasing a waiting producer, and a consumer whose task is cancelled.
@Suite(.timeLimit(.minutes(1))) struct AsyncBoundedQueueTests {
    struct Failure: Error {}

    @Test func elementsComeInOrderThenTheEnd() async throws {
        let queue = AsyncBoundedQueue<Int, Failure>(capacity: 4)
        for i in 1...3 { #expect(await queue.push(i)) }
        queue.finish()
        #expect(await queue.push(9) == false, "nothing after the end")
        var seen: [Int] = []
        while let i = try await queue.next() { seen.append(i) }
        #expect(seen == [1, 2, 3])
        #expect(try await queue.next() == nil)
    }

    @Test func aFullQueueHoldsTheProducerUntilTheConsumerIsDownToHalf() async throws {
        let queue = AsyncBoundedQueue<Int, Never>(capacity: 4)
        for i in 1...3 { await queue.push(i) }
        let filling = Task { await queue.push(4) }
        await queue.untilTheProducerWaits()
        #expect(queue.count == 4, "the push that filled the queue waits")
        #expect(await queue.next() == 1)
        await queue.untilTheProducerWaits()
        #expect(await queue.next() == 2)
        #expect(await filling.value, "2 left: half the capacity")
        var rest: [Int] = []
        for _ in 3...4 { rest.append(await queue.next() ?? -1) }
        #expect(rest == [3, 4])
    }

    @Test func anErrorIsThrownAfterWhatIsQueuedAndOnlyOnce() async throws {
        let queue = AsyncBoundedQueue<Int, Failure>(capacity: 2)
        await queue.push(1)
        queue.finish(throwing: Failure())
        queue.finish()
        #expect(try await queue.next() == 1)
        await #expect(throws: Failure.self) { try await queue.next() }
        #expect(try await queue.next() == nil)
    }

    @Test func aWaitingConsumerIsHandedTheElementOrTheEnd() async throws {
        let queue = AsyncBoundedQueue<Int, Failure>(capacity: 2)
        let first = Task { try await queue.next() }
        #expect(await queue.push(7))
        #expect(try await first.value == 7)
        let second = Task { try await queue.next() }
        queue.finish(throwing: Failure())
        await #expect(throws: Failure.self) { try await second.value }
    }

    @Test func cancelDropsWhatIsQueuedAndReleasesTheProducer() async throws {
        let queue = AsyncBoundedQueue<Int, Failure>(capacity: 1)
        let blocked = Task { await queue.push(1) }
        await queue.untilTheProducerWaits()
        queue.cancel()
        #expect(await blocked.value)
        #expect(queue.count == 0)
        #expect(try await queue.next() == nil)
        #expect(await queue.push(3) == false)
    }

    @Test func aConsumerTakingFromItsHandStillReleasesTheProducer() async {
        let queue = AsyncBoundedQueue<Int, Never>(capacity: 1_000)
        let producer = Task {
            for i in 0..<10_000 { await queue.push(i) }
            queue.finish()
        }
        var expected = 0
        while let i = await queue.next() {
            guard i == expected else {
                Issue.record("\(i) where \(expected) was due")
                break
            }
            expected += 1
            #expect(queue.count <= 1_000)
        }
        await producer.value
        #expect(expected == 10_000)
    }

    @Test func aCancelledConsumerGetsNilWhetherItWasWaitingOrNot() async {
        let queue = AsyncBoundedQueue<Int, Never>(capacity: 4)
        let waiting = Task { await queue.next() }
        waiting.cancel()
        #expect(await waiting.value == nil)
    }

    @Test func afterACancelledConsumerTheNextOneGetsWhatIsPushedInOrder() async {
        let queue = AsyncBoundedQueue<Int, Never>(capacity: 4)
        let cancelled = Task { await queue.next() }
        cancelled.cancel()
        _ = await cancelled.value
        await queue.push(1)
        await queue.push(2)
        #expect(await queue.next() == 1)
        #expect(await queue.next() == 2)
        queue.finish()
        #expect(await queue.next() == nil)
    }

    @Test func aQueuedElementIsStillServedToAConsumerWhoseTaskIsCancelled() async {
        let queue = AsyncBoundedQueue<Int, Never>(capacity: 4)
        await queue.push(7)
        let t = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await queue.next()
        }
        #expect(await t.value == 7)
    }
}

import RealtimeCore
import RealtimeLLM
import RealtimeTestSupport
import Testing

/// The adapter's I/O layer against a manual clock and a source the test steps through:
/// deterministic, no sleeps.
@Suite(.timeLimit(.minutes(1))) struct CoalescedSequenceTests {
    static let interval = Duration.seconds(1) / 30

    @Test func firstAtOnceThenOneBatchPerIntervalNothingEarly() async throws {
        let clock = ManualClock()
        let source = TestSource<Int>()
        let batches = SharedIterator(source.coalesced(clock: clock).makeAsyncIterator())
        await source.send(1)
        // Idle consumer: the first element goes out without the clock moving.
        #expect(try await batches.next() == [1])
        await source.send(2)
        await source.send(3)
        async let second = batches.next()
        clock.advance(by: .milliseconds(20))
        // Had a batch gone out before the slot, 4 would be in a batch of its own.
        await source.send(4)
        clock.advance(by: Self.interval - .milliseconds(20))
        #expect(try await second == [2, 3, 4])
        await source.finish()
        #expect(try await batches.next() == nil)
    }

    @Test func textDeltasMergeWithinABatch() async throws {
        let clock = ManualClock()
        let source = TestSource<LLMDelta>()
        let batches = SharedIterator(source.coalesced(clock: clock).makeAsyncIterator())
        await source.send(.text("He"))
        #expect(try await batches.next() == [.text("He")])
        for delta: LLMDelta in [.text("l"), .text("lo"), .finish(.stop), .usage(LLMUsage(outputTokens: 3)), .text(" again")] {
            await source.send(delta)
        }
        async let batch = batches.next()
        clock.advance(by: Self.interval)
        #expect(try await batch == [.text("llo"), .finish(.stop), .usage(LLMUsage(outputTokens: 3)), .text(" again")])
    }

    @Test func theEndFlushesWithoutWaitingForTheSlot() async throws {
        let clock = ManualClock()
        let source = TestSource<Int>()
        let batches = SharedIterator(source.coalesced(clock: clock).makeAsyncIterator())
        await source.send(1)
        #expect(try await batches.next() == [1])
        await source.send(2)
        async let last = batches.next()
        await source.finish()
        // No clock move: the pending element goes out as soon as the source ends.
        #expect(try await last == [2])
        #expect(try await batches.next() == nil)
        #expect(clock.now.offset == .zero)
    }

    @Test func aSourceErrorComesAfterEverythingBeforeIt() async throws {
        struct Boom: Error, Equatable {}
        let stream = AsyncThrowingStream<Int, any Error> { c in
            for n in 1...5 { c.yield(n) }
            c.finish(throwing: Boom())
        }
        var received: [Int] = []
        var thrown: (any Error)?
        do {
            for try await batch in stream.coalesced(clock: ManualClock()) {
                received += batch
            }
        } catch {
            thrown = error
        }
        #expect(received == [1, 2, 3, 4, 5])
        #expect(thrown is Boom)
    }

    enum Outcome: Sendable {
        case batch([Int]?)
        case timerWaits
    }

    /// The next batch from `next`, moving the clock by `window` each time the coalescer's timer
    /// waits (moved before the timer starts, it would leave that timer waiting for good): the
    /// batch and the next sleeper race in a task group, so nothing spins.
    static func nextBatch(
        clock: ManualClock, window: Duration, _ next: @escaping @Sendable () async throws -> [Int]?
    ) async throws -> [Int]? {
        try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask { .batch(try await next()) }
            group.addTask { await clock.waitForSleepers(1); return .timerWaits }
            while let outcome = try await group.next() {
                switch outcome {
                case .batch(let batch):
                    group.cancelAll()
                    return batch
                case .timerWaits:
                    clock.advance(by: window)
                    group.addTask { await clock.waitForSleepers(1); return .timerWaits }
                }
            }
            return nil
        }
    }

    @Test func aFullBufferPausesTheSourceAndBatchesStayWithinIt() async throws {
        let clock = ManualClock()
        let source = TestSource<Int>()
        let batches = SharedIterator(source.coalesced(every: .milliseconds(10), clock: clock, maxPending: 3).makeAsyncIterator())
        let sender = Task {
            for n in 1...50 { await source.send(n) }
            await source.finish()
        }
        var received: [Int] = []
        while let next = try await Self.nextBatch(clock: clock, window: .milliseconds(10), { try await batches.next() }) {
            #expect(next.count <= 3)
            received += next
        }
        await sender.value
        #expect(received == Array(1...50))
    }

    @Test func cancellingTheConsumerCancelsTheSource() async throws {
        let source = TestSource<Int>()
        let sequence = source.coalesced(clock: ManualClock())
        let consumer = Task {
            var count = 0
            for await batch in sequence { count += batch.count }
            return count
        }
        await source.send(1)
        consumer.cancel()
        await source.cancellation()
        #expect(await consumer.value <= 1)
    }

    @Test func droppingTheIteratorCancelsTheSource() async throws {
        let source = TestSource<Int>()
        do {
            var iterator = source.coalesced(clock: ManualClock()).makeAsyncIterator()
            await source.send(1)
            #expect(await iterator.next() == [1])
        }
        await source.cancellation()
    }

    @Test func aWaitingConsumerIsReleasedByCancellation() async throws {
        let source = TestSource<Int>()
        let sequence = source.coalesced(clock: ManualClock())
        let consumer = Task {
            var iterator = sequence.makeAsyncIterator()
            return await iterator.next()
        }
        // Wait until the reader is parked on the source, then cancel the waiting consumer.
        await source.readerPresent()
        consumer.cancel()
        #expect(await consumer.value == nil)
        await source.cancellation()
    }
}

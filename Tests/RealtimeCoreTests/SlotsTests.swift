import RealtimeTestSupport
import Synchronization
import RealtimeCore
import Testing

/// The test-support gate that bounds how many children a parallel suite starts at once.
@Suite(.timeLimit(.minutes(1))) struct SlotsTests {
    final class Meter: Sendable {
        let state = LockedValue((now: 0, peak: 0, done: 0))
        func enter() { state.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
        func leave() { state.withLock { $0.now -= 1; $0.done += 1 } }
    }

    @Test(arguments: [1, 2, 3])
    func neverMoreThanTheLimitAtOnceAndEveryBodyRuns(limit: Int) async throws {
        let slots = Slots(limit)
        let meter = Meter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await slots.withSlot {
                        meter.enter()
                        for _ in 0..<5 { await Task.yield() }
                        meter.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        let state = meter.state.withLock { $0 }
        #expect(state.done == 12)
        #expect(state.peak <= limit)
        #expect(state.now == 0)
    }

    struct Refused: Error {}

    @Test func aThrowingBodyFreesItsSlot() async throws {
        let slots = Slots(1)
        await #expect(throws: Refused.self) { try await slots.withSlot { throw Refused() } }
        // With the one slot still taken this would wait forever (the time limit fails it).
        let value = try await slots.withSlot { 7 }
        #expect(value == 7)
    }
}

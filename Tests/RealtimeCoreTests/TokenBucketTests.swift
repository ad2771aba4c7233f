import RealtimeTestSupport
import Testing

@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct TokenBucketTests {
    @Test func burstThenPaced() {
        var b = TokenBucket(capacity: 3, refillPerSecond: 2)
        let waits = (0..<6).map { _ in b.reserve(at: .zero) }
        #expect(waits == [.zero, .zero, .zero, .milliseconds(500), .seconds(1), .milliseconds(1500)])
    }

    @Test func refillsOverTimeUpToCapacity() {
        var b = TokenBucket(capacity: 2, refillPerSecond: 1)
        #expect(b.reserve(at: .zero) == .zero)
        #expect(b.reserve(at: .zero) == .zero)
        #expect(b.reserve(at: .seconds(1)) == .zero, "one token refilled")
        #expect(b.reserve(at: .seconds(1)) == .seconds(1))
        // A long quiet period refills to capacity, not beyond.
        #expect(b.reserve(at: .seconds(1000)) == .zero)
        #expect(b.reserve(at: .seconds(1000)) == .zero)
        #expect(b.reserve(at: .seconds(1000)) == .seconds(1))
    }

    @Test func sharedBudgetPacesManyCallers() {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 10, perSecond: 100, clock: clock)
        let waits = (0..<1000).map { _ in budget.reserve() }
        // 10 at once, then one every 10 ms: the last waits 9.9 s.
        #expect(waits.filter { $0 == .zero }.count == 10)
        #expect(waits.last == .milliseconds(9900))
        // The implied rate never exceeds burst + perSecond × t.
        for (i, w) in waits.enumerated() {
            let secs = Double(w.components.seconds) + Double(w.components.attoseconds) * 1e-18
            #expect(Double(i + 1) <= 10 + 100 * secs + 1e-6)
        }
    }
}

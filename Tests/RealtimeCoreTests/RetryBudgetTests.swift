import RealtimeCore
import RealtimeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct RetryBudgetTests {
    /// 1,000 clients asking at the same instant never exceed rate + burst attempts in any
    /// one-second window, and the last waits (n − burst) / rate.
    @Test func aThunderingHerdIsSpreadOut() {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 20, perSecond: 50, clock: clock)
        let starts = (0..<1000).map { _ in budget.reserve().seconds }.sorted()
        var peak = 0
        var lo = 0
        for hi in starts.indices {
            while starts[hi] - starts[lo] >= 1 { lo += 1 }
            peak = max(peak, hi - lo + 1)
        }
        #expect(peak <= 50 + 20)
        #expect(abs(starts.last! - 980.0 / 50) < 1e-6)
    }

    @Test func reservationsFollowTheInjectedClock() {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 1, perSecond: 2, clock: clock)
        #expect(budget.reserve() == .zero)
        #expect(budget.reserve() == .milliseconds(500))
        clock.advance(by: .seconds(10))
        #expect(budget.reserve() == .zero, "refilled (capped at the burst)")
        #expect(budget.reserve() == .milliseconds(500))
    }
}

@Suite(.timeLimit(.minutes(1))) struct RetryBudgetAdmissionTests {
    /// Attempts made at their booked slots are admitted at once; attempts that all come late
    /// together (a stalled process) are spread out again at the budget's rate.
    @Test func onTimeAttemptsPassLateOnesAreSpread() {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 2, perSecond: 10, clock: clock)
        let waits = (0..<6).map { _ in budget.reserve() }
        #expect(waits == [.zero, .zero, .milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(400)])
        var elapsed = Duration.zero
        for w in waits {
            clock.advance(by: w - elapsed)
            elapsed = w
            #expect(budget.admit() == .zero, "on time at \(w)")
        }
        // Six more, booked for 0.5…1.0 s, but the process wakes them all at 1.5 s.
        let late = (0..<6).map { _ in budget.reserve() }
        #expect(late.last == .milliseconds(600))
        clock.advance(by: .milliseconds(1100))
        let admitted = (0..<6).map { _ in budget.admit() }
        #expect(admitted == [.zero, .zero, .milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(400)])
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

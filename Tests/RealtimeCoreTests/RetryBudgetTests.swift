import RealtimeCore
import RealtimeTestSupport
import Testing

@Suite struct RetryBudgetTests {
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

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

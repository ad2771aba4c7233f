import RealtimeTestSupport
import Testing

@testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct RetryCalendarTests {
    @Test func burstThenPacedLikeATokenBucket() {
        var c = RetryCalendar(burst: 3, perSecond: 2)
        let slots = (0..<6).map { _ in c.reserve(now: .zero, notBefore: .zero) }
        #expect(slots == [.zero, .zero, .zero, .milliseconds(500), .seconds(1), .milliseconds(1500)])
    }

    @Test func refillsOverTimeUpToTheBurst() {
        var c = RetryCalendar(burst: 2, perSecond: 1)
        #expect(c.reserve(now: .zero, notBefore: .zero) == .zero)
        #expect(c.reserve(now: .zero, notBefore: .zero) == .zero)
        #expect(c.reserve(now: .seconds(1), notBefore: .seconds(1)) == .seconds(1), "one token refilled")
        #expect(c.reserve(now: .seconds(1), notBefore: .seconds(1)) == .seconds(2))
        #expect(c.reserve(now: .seconds(1000), notBefore: .seconds(1000)) == .seconds(1000))
        #expect(c.reserve(now: .seconds(1000), notBefore: .seconds(1000)) == .seconds(1000))
        #expect(c.reserve(now: .seconds(1000), notBefore: .seconds(1000)) == .seconds(1001))
        #expect(c.bookedTicks == 2, "the past is folded away")
    }

    /// A late booking made first does not push an early one back (the flaw of a bucket that
    /// only knows the present), and an early one never overfills the window of a later one.
    @Test func outOfOrderBookingsKeepTheirTimes() {
        var c = RetryCalendar(burst: 1, perSecond: 1)
        #expect(c.reserve(now: .zero, notBefore: .seconds(30)) == .seconds(30))
        #expect(c.reserve(now: .zero, notBefore: .milliseconds(100)) == .milliseconds(100))
        #expect(c.reserve(now: .zero, notBefore: .seconds(5)) == .seconds(5))
        // One slot per one-second tick: the second ask for 29 s finds 29 and 30 taken.
        #expect(c.reserve(now: .zero, notBefore: .seconds(29)) == .seconds(29))
        #expect(c.reserve(now: .zero, notBefore: .seconds(29)) == .seconds(31))
    }

    /// Random requests (times, delays, order) from a seeded generator: the booked schedule
    /// never puts more than burst + perSecond·w into any window of w seconds, every slot is
    /// at or after its request, and a slot only moves later when the budget forces it.
    @Test(arguments: [(5, 20.0), (1, 3.0), (50, 200.0), (3, 2500.0)])
    func randomBookingsNeverExceedTheLimit(burst: Int, perSecond: Double) {
        var rng = SeededGenerator(seed: 42)
        var c = RetryCalendar(burst: burst, perSecond: perSecond)
        var now = 0.0
        var slots: [Double] = []
        for _ in 0..<3000 {
            now += Double.random(in: 0...(3 / perSecond), using: &rng)
            let delay = Double.random(in: 0...(200 / perSecond), using: &rng)
            let slot = c.reserve(now: .seconds(now), notBefore: .seconds(now + delay)).secondsDouble
            #expect(slot >= now + delay - 1e-9)
            slots.append(slot)
        }
        slots.sort()
        for window in [c.tickSeconds, 1.0, 5.0] {
            var lo = 0
            var peak = 0
            for hi in slots.indices {
                while slots[hi] - slots[lo] >= window - 1e-9 { lo += 1 }
                peak = max(peak, hi - lo + 1)
            }
            let allowed = Double(c.burst) + perSecond * window + Double(c.perTick)
            #expect(Double(peak) <= allowed, "window \(window) s: \(peak) > \(allowed)")
        }
        #expect(c.bookedTicks <= 3000)
    }

    @Test func fastRatesUseMillisecondTicks() {
        let c = RetryCalendar(burst: 1, perSecond: 5000)
        #expect(c.perTick == 5)
        #expect(c.burst == 5, "a burst below one tick's refill is raised to it")
        #expect(abs(c.tickSeconds - 0.001) < 1e-12)
    }
}

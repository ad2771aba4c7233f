/// A clock with its type erased, so ``CoalescedSequence`` is generic only over its source:
/// `ContinuousClock` in production, a manual clock in tests.
package struct CoalescingClock: Sendable {
    /// Time since the clock was wrapped (only differences matter).
    package let now: @Sendable () -> Duration
    /// Sleeps until that time since the clock was wrapped; throws when cancelled.
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        // A small explicit tolerance: with nil, Dispatch may add 10 % of the delay.
        self.sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: .milliseconds(1)) }
    }
}

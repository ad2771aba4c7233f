/// The client's clock with its type erased, so `RealtimeClient` is not generic: production
/// uses `ContinuousClock`, tests a manual clock. Times are durations since the clock was
/// wrapped (the state machine's time line).
struct ClientClock: Sendable {
    /// Sleeps until a time on this time line; throws `CancellationError` when the task is
    /// cancelled.
    let sleep: @Sendable (_ until: Duration) async throws -> Void
    /// Time elapsed since the clock was wrapped.
    let now: @Sendable () -> Duration

    /// How late a backoff timer may fire.
    static let tolerance = Duration.milliseconds(1)

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        // An explicit small tolerance: with nil, Dispatch applies its default leeway (10 % of
        // the delay) and coalesces timers, so a thousand clients whose retry-budget slots
        // are spread over seconds would wake in bunches and break the budget's rate.
        self.sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: Self.tolerance) }
        self.now = { origin.duration(to: clock.now) }
    }

    /// Sleeps until `deadline` (see ``sleep``).
    func sleep(until deadline: Duration) async throws {
        try await sleep(deadline)
    }
}

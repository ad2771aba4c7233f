/// The client's clock with its type erased, so `RealtimeClient` is not generic: production
/// uses `ContinuousClock`, tests a manual clock.
struct ClientClock: Sendable {
    /// Sleeps for a duration; throws `CancellationError` when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    /// Time elapsed since the clock was wrapped (only differences matter).
    let now: @Sendable () -> Duration

    /// How late a backoff timer may fire.
    static let tolerance = Duration.milliseconds(1)

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        // An explicit small tolerance: with nil, Dispatch applies its default leeway (10 % of
        // the delay) and coalesces timers, so a thousand clients whose retry-budget slots
        // are spread over seconds would wake in bunches and break the budget's rate.
        self.sleep = { d in try await clock.sleep(until: clock.now.advanced(by: d), tolerance: Self.tolerance) }
        self.now = { origin.duration(to: clock.now) }
    }
}

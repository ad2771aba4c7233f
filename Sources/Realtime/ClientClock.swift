/// The client's clock with its type erased, so `RealtimeClient` is not generic: production
/// uses `ContinuousClock`, tests a manual clock.
struct ClientClock: Sendable {
    /// Sleeps for a duration; throws `CancellationError` when the task is cancelled.
    let sleep: @Sendable (Duration) async throws -> Void
    /// Time elapsed since the clock was wrapped (only differences matter).
    let now: @Sendable () -> Duration

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        self.sleep = { d in try await clock.sleep(until: clock.now.advanced(by: d), tolerance: nil) }
        self.now = { origin.duration(to: clock.now) }
    }
}

/// The client's clock with its type erased, so `RealtimeClient` is not generic: production
/// uses `ContinuousClock`, tests a manual clock. Times are durations since the clock was
/// wrapped (the state machine's time line).
///
/// A clock that runs timers itself (``ClientTimerSource``, the manual loop the transports of
/// an embedded test run on) runs the client's timers too: one `advanceTime` then moves the
/// client and its transports together, and a timer fires inside it, with no task to wait for.
package struct ClientClock: Sendable {
    /// Sleeps until a time on this time line; throws `CancellationError` when the task is
    /// cancelled.
    package let sleep: @Sendable (_ until: Duration) async throws -> Void
    /// Time elapsed since the clock was wrapped.
    package let now: @Sendable () -> Duration
    /// The clock's own timers, when it has them.
    let timers: (any ClientTimerSource)?

    /// How late a backoff timer may fire.
    static let tolerance = Duration.milliseconds(1)

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        // An explicit small tolerance: with nil, Dispatch applies its default leeway (10 % of
        // the delay) and coalesces timers, so a thousand clients whose retry-budget slots
        // are spread over seconds would wake in bunches and break the budget's rate.
        self.sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: Self.tolerance) }
        self.now = { origin.duration(to: clock.now) }
        self.timers = clock as? any ClientTimerSource
    }

    /// Sleeps until `deadline` (see ``sleep``).
    func sleep(until deadline: Duration) async throws {
        try await sleep(deadline)
    }

    /// Calls `fire` at `deadline` on this time line: on the clock's own timers when it has
    /// them, else from a task that sleeps until then. Cancel the returned timer to withdraw it
    /// (`fire` may still run once if it was already due: the client's timers are tokened, so a
    /// late one is stale).
    package func arm(at deadline: Duration, _ fire: @escaping @Sendable () -> Void) -> ClientTimer {
        if let timers {
            return .scheduled(timers, timers.scheduleTimer(after: max(.zero, deadline - now()), fire))
        }
        return .task(Task { [self] in
            do { try await sleep(until: deadline) } catch { return }
            fire()
        })
    }

    /// ``arm(at:_:)`` `delay` from now.
    package func arm(after delay: Duration, _ fire: @escaping @Sendable () -> Void) -> ClientTimer {
        arm(at: now() + delay, fire)
    }
}

/// A clock that runs timers itself, such as the manual loop of an embedded test: the client
/// schedules its timers on it instead of sleeping in tasks.
package protocol ClientTimerSource: AnyObject, Sendable {
    /// Runs `body` once, `delay` from now on this clock; returns a token for ``cancelTimer(_:)``.
    func scheduleTimer(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> UInt64
    /// Withdraws the timer with this token; nothing when it already fired.
    func cancelTimer(_ token: UInt64)
}

/// Something the client started and may have to stop: a timer on its clock, or a task
/// (preparation work, the on-open hook, the outbox's drain).
package enum ClientTimer: Sendable {
    case task(Task<Void, Never>)
    case scheduled(any ClientTimerSource, UInt64)

    package func cancel() {
        switch self {
        case .task(let task): task.cancel()
        case .scheduled(let source, let token): source.cancelTimer(token)
        }
    }
}

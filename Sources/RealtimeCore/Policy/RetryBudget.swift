
/// A reconnect budget shared by many clients in one process, so that ten thousand clients
/// cut by the same server restart do not all reconnect in the same second (storm
/// control). Give the same instance to every client's configuration.
///
/// Each reconnect (not a client's first connection) books a slot in a `RetryCalendar`: at
/// most `burst` reconnects at once after a quiet period, `perSecond` sustained, so any window
/// of `w` seconds starts at most `burst + perSecond·w` reconnects. A client books when its
/// backoff begins, asking for "not before the backoff ends"; when the budget is short it gets
/// a later slot, and the delay it reports (`ErrorEvent.retryIn`) is that real one. The first
/// connections of new clients are not limited.
public final class RetryBudget: Sendable {
    private let calendar: LockedValue<RetryCalendar>
    /// The same limit applied to the attempts actually made (see ``admit()``).
    private let attempts: LockedValue<RetryCalendar>
    private let now: @Sendable () -> Duration

    /// - Parameters:
    ///   - burst: reconnects allowed at once after a quiet period. Default 100.
    ///   - perSecond: sustained reconnects per second. Default 50.
    public convenience init(burst: Int = 100, perSecond: Double = 50) {
        self.init(burst: burst, perSecond: perSecond, clock: ContinuousClock())
    }

    /// A budget on an injected clock (tests use a manual clock).
    public init<C: Clock>(burst: Int, perSecond: Double, clock: C) where C.Duration == Duration {
        let calendar = RetryCalendar(burst: burst, perSecond: perSecond)
        self.calendar = LockedValue(calendar)
        self.attempts = LockedValue(calendar)
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
    }

    /// Sustained reconnects per second.
    public var perSecond: Double { calendar.withLock { $0.perSecond } }
    /// Reconnects allowed at once after a quiet period.
    public var burst: Int { calendar.withLock { $0.burst } }

    /// Books one reconnect as soon as the budget allows; returns how long to wait for it.
    package func reserve() -> Duration {
        reserve(after: .zero)
    }

    /// Books one reconnect no earlier than `delay` from now (e.g. the backoff delay); returns
    /// how long to wait for it: `delay` when the budget has room then, longer when not.
    package func reserve(after delay: Duration) -> Duration {
        // The time is read under the lock, so bookings reach the calendar in time order.
        calendar.withLock { c in
            let t = now()
            return c.reserve(now: t, notBefore: t + Swift.max(.zero, delay)) - t
        }
    }

    /// How late after an admitted time an attempt still counts as on time: one tick of the
    /// schedule, at least 2 ms.
    package var lateness: Duration {
        calendar.withLock { .clampedSeconds(Swift.max($0.tickSeconds, 0.002)) }
    }

    /// Admits an attempt about to be made at its booked slot; returns how long to hold it
    /// back first (zero when it is on time: the booked slots already fit the limit).
    ///
    /// A process too busy to wake its timers on time wakes them late and together. Admission
    /// books the attempts actually made in a second calendar, so such a late bunch is spread
    /// out again at the budget's rate: the limit holds for what is done, not only for the
    /// plan. A caller that is woken more than ``lateness`` after the admitted time asks again.
    package func admit() -> Duration {
        attempts.withLock { c in
            let t = now()
            return c.reserve(now: t, notBefore: t) - t
        }
    }
}

import Realtime
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
import Synchronization

/// The manual loop is also a `Clock`, and runs the timers of a `RealtimeClient` made with it
/// (``ClientTimerSource``): the client's backoff, outbox expiry and on-open hook deadline are
/// timers on the same loop as its transports', so one ``ManualLoop/advanceTime(by:)`` moves
/// everything, and a timer's work (a reconnect, a transport started) is done when it returns.
extension ManualLoop: Clock, ClientTimerSource {
    /// The clock's duration type.
    public typealias Duration = Swift.Duration

    /// One nanosecond: time moves only when the test moves it.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until the loop's time passes `deadline` (a timer on the loop resumes it);
    /// throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                guard sleeper.begin(c) else { return }
                let timer = schedule(at: deadline) { sleeper.finish(nil) }
                sleeper.armed(timer) { [weak self] in self?.cancel($0) }
            }
        } onCancel: {
            sleeper.finish(CancellationError())
        }
    }

    package func scheduleTimer(after delay: Duration, _ body: @escaping @Sendable () -> Void) -> UInt64 {
        schedule(at: now.advanced(by: delay), body).id
    }

    package func cancelTimer(_ token: UInt64) {
        cancel(TimerHandle(id: token))
    }
}

/// One `sleep(until:)`: the first of the timer and a cancellation resumes it; a cancellation
/// also withdraws the timer.
private final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var timer: TimerHandle?
        var cancelTimer: (@Sendable (TimerHandle) -> Void)?
        var done: (any Error)??
    }
    private let state = LockedValue(State())

    /// Keeps the continuation; false (and resumed) when the sleep is already over (a
    /// cancellation came first).
    func begin(_ c: CheckedContinuation<Void, any Error>) -> Bool {
        let done: (any Error)?? = state.withLock { s in
            if let done = s.done { return .some(done) }
            s.continuation = c
            return nil
        }
        guard let done else { return true }
        if let error = done { c.resume(throwing: error) } else { c.resume() }
        return false
    }

    func armed(_ timer: TimerHandle, cancel: @escaping @Sendable (TimerHandle) -> Void) {
        let late: (any Error)?? = state.withLock { s in
            s.timer = timer
            s.cancelTimer = cancel
            return s.done
        }
        // Cancelled before the timer was armed: withdraw it now.
        if case .some(.some) = late { cancel(timer) }
    }

    func finish(_ error: (any Error)?) {
        let (c, timer, cancel): (CheckedContinuation<Void, any Error>?, TimerHandle?, (@Sendable (TimerHandle) -> Void)?) =
            state.withLock { s in
                guard s.done == nil else { return (nil, nil, nil) }
                s.done = .some(error)
                defer { s.continuation = nil }
                return (s.continuation, error == nil ? nil : s.timer, s.cancelTimer)
            }
        if let timer, let cancel { cancel(timer) }
        if let error { c?.resume(throwing: error) } else { c?.resume() }
    }
}

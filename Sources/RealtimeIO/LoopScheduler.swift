/// What a connection needs from the thread that runs it: the time, one-shot timers at a
/// deadline, and work queued to run on that thread. The epoll ``EventLoop`` is the
/// production scheduler; tests pass a manual one whose time moves only when the test moves
/// it, so every timeout a connection keeps can be reached without waiting for it.
///
/// Threading: ``execute(_:)`` may be called from any thread; everything else on the
/// scheduler's own thread (``inEventLoop``), where every timer body and queued task runs.
package protocol LoopScheduler: AnyObject, Sendable {
    associatedtype Instant: InstantProtocol<Duration>

    /// The scheduler's current time, the base of every deadline passed to it.
    var now: Instant { get }

    /// True when called on the scheduler's thread (inside one of its tasks or timers).
    var inEventLoop: Bool { get }

    /// Runs `task` on the scheduler's thread, after the tasks queued before it; never
    /// inline, also when called from that thread.
    func execute(_ task: @escaping @Sendable () -> Void)

    /// Runs `body` once at `deadline` (at once, on a later pass, when it is already due).
    func schedule(at deadline: Instant, _ body: @escaping () -> Void) -> TimerHandle

    /// Cancels a pending timer; does nothing if it already fired or was cancelled.
    func cancel(_ timer: TimerHandle)
}

/// A mutable reference to scheduler-thread-only state that may be *carried* across threads
/// (captured by a `@Sendable` closure handed to ``LoopScheduler/execute(_:)``) but only
/// *used* on its scheduler's thread, which every access checks with a precondition.
///
/// This is the one sanctioned escape hatch for non-`Sendable` connection state: the
/// compiler cannot see the loop's thread rule, the precondition enforces it at run time.
package final class LoopBound<Value, Loop: LoopScheduler>: @unchecked Sendable {
    package let loop: Loop
    private var storage: Value

    /// Creates the box; may be called on any thread (the value is only stored).
    package init(_ value: Value, loop: Loop) {
        self.loop = loop
        self.storage = value
    }

    /// The boxed value. Loop thread only.
    package var value: Value {
        get {
            precondition(loop.inEventLoop, "LoopBound read off its loop thread")
            return storage
        }
        set {
            precondition(loop.inEventLoop, "LoopBound written off its loop thread")
            storage = newValue
        }
    }
}

#if os(Linux)
extension EventLoop: LoopScheduler {
    package var now: ContinuousClock.Instant { .now }

    /// The timer heap counts on the monotonic clock: the deadline becomes a delay from now.
    package func schedule(at deadline: ContinuousClock.Instant, _ body: @escaping () -> Void) -> TimerHandle {
        schedule(after: max(ContinuousClock.Instant.now.duration(to: deadline), .zero), body)
    }
}
#endif

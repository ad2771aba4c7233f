#if os(Linux)
import Glibc
#endif
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// An event loop whose time moves only when the test moves it, and the clock of a
/// `RealtimeClient` made with it: the production transports run on it (their I/O, idle and
/// heartbeat timers), and so do the client's timers (backoff, the outbox's expiry, the
/// on-open hook's deadline). Queued work runs when the test calls ``run()`` (or moves time);
/// timers fire in deadline order (ties in the order they were armed) as ``advanceTime(by:)``
/// passes their deadlines, each seeing ``now`` at its own deadline, and what a timer starts
/// (a reconnect, a ping) is done when the call returns. Nothing sleeps, nothing reads the
/// wall clock: a test runs the same on a loaded machine.
///
/// Threading: while the loop runs work, timers or a body it runs on the loop, the calling
/// thread counts as the loop's thread; work may be queued from anywhere. Two tasks that run
/// the loop at once take turns: one waits until the other's run is over, so loop work never
/// runs on two threads.
public final class ManualLoop: LoopScheduler, @unchecked Sendable {
    /// A time on the loop's time line: the duration since the loop was made.
    public struct Instant: InstantProtocol, Sendable {
        /// The time since the loop was made.
        public var offset: Duration
        /// The time `offset` after the loop was made.
        public init(offset: Duration) { self.offset = offset }
        /// This time plus `duration`.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// A timer body; only ever called on the loop's (the test's) thread.
    private struct Timer: @unchecked Sendable {
        let deadline: Instant
        let sequence: UInt64
        let body: () -> Void
    }

    private struct State {
        var now = Instant(offset: .zero)
        var tasks: [@Sendable () -> Void] = []
        /// Tasks waiting for work to be queued (``waitForWork()``).
        var workWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var timers: [UInt64: Timer] = [:]
        /// Tasks waiting for timers to be armed (``waitForTimers(_:)``), by id: each resumed
        /// once the armed timers satisfy its condition.
        var timerWaiters: [UInt64: (armed: @Sendable ([Timer]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextID: UInt64 = 0
        /// Tasks and timers run so far.
        var steps: UInt64 = 0
        var runner: pthread_t?
        var depth = 0
        /// Set by ``shutdown()``: work queued or armed from then on is dropped.
        var isShutDown = false
    }

    private let state = LockedValue(State())
    /// Held while a thread runs the loop (recursively: work may run the loop again).
    private let turn = RecursiveMutex()
    /// Work items and timers one ``run()`` may run: a connection that keeps queueing work
    /// for itself fails the test instead of spinning.
    private let maxStepsPerRun: Int

    /// A loop at time zero. `maxStepsPerRun` bounds the work items and timers one ``run()``
    /// (or one instant of ``advanceTime(by:)``) may run: code that keeps queueing work for
    /// itself fails the test instead of spinning.
    public init(maxStepsPerRun: Int = 100_000) {
        self.maxStepsPerRun = maxStepsPerRun
    }

    /// The loop's current time.
    public var now: Instant { state.withLock { $0.now } }

    package var inEventLoop: Bool {
        state.withLock { s in s.runner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    package func execute(_ task: @escaping @Sendable () -> Void) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { s in
            guard !s.isShutDown else { return [] }
            s.tasks.append(task)
            defer { s.workWaiters = [:] }
            return Array(s.workWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until work is queued on the loop or a timer falls due at the current time (at
    /// once when there is some), or the task is cancelled: for code that queues work or arms a
    /// timer from another task (a client's on-open hook sending a frame, a consumer's progress
    /// starting a reconnect). Run it with ``run()`` afterwards.
    public func waitForWork() async {
        await suspend(
            unless: { s in !s.tasks.isEmpty || s.timers.values.contains { $0.deadline <= s.now } },
            park: { $0.workWaiters[$1] = $2 },
            unpark: { $0.workWaiters.removeValue(forKey: $1) })
    }

    /// Suspends until at least `count` timers are armed (at once when they are), or the task
    /// is cancelled: for code that arms a timer from another task (a client's backoff after
    /// its consumer caught up, a redelivery's delay). Move the time with ``advanceTime(by:)``
    /// afterwards.
    public func waitForTimers(_ count: Int) async {
        await waitForTimers { $0.count >= count }
    }

    /// Suspends until a timer is armed to fall due at `deadline` (at once when one is): for a
    /// timer another task arms while others are armed already (a pause armed after the
    /// timeout before it was withdrawn), which a count of timers cannot tell apart.
    package func waitForTimer(dueAt deadline: Instant) async {
        await waitForTimers { $0.contains { $0.deadline == deadline } }
    }

    private func waitForTimers(until armed: @escaping @Sendable ([Timer]) -> Bool) async {
        await suspend(
            unless: { armed(Array($0.timers.values)) }, park: { $0.timerWaiters[$1] = (armed, $2) },
            unpark: { $0.timerWaiters.removeValue(forKey: $1)?.continuation })
    }

    /// Suspends the calling task unless `ready` holds: `park` files its continuation under an
    /// id, for whoever makes `ready` true to resume; cancelling the task takes it out again
    /// (`unpark`) and resumes it.
    private func suspend(
        unless ready: (State) -> Bool,
        park: (inout State, UInt64, CheckedContinuation<Void, Never>) -> Void,
        unpark: @escaping @Sendable (inout State, UInt64) -> CheckedContinuation<Void, Never>?
    ) async {
        let id = nextWaiterID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { s in
                    guard !ready(s), !Task.isCancelled else { return true }
                    park(&s, id, c)
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            state.withLock { unpark(&$0, id) }?.resume()
        }
    }

    /// A fresh id for a waiting task, so its cancellation finds it.
    private func nextWaiterID() -> UInt64 {
        state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
    }

    package func schedule(at deadline: Instant, _ body: @escaping () -> Void) -> TimerHandle {
        let (id, ready) = state.withLock { s -> (UInt64, [CheckedContinuation<Void, Never>]) in
            s.nextID += 1
            guard !s.isShutDown else { return (s.nextID, []) }
            s.timers[s.nextID] = Timer(deadline: deadline, sequence: s.nextID, body: body)
            let armed = s.timerWaiters.isEmpty ? [] : Array(s.timers.values)
            let ready = s.timerWaiters.filter { $0.value.armed(armed) }
            for key in ready.keys { s.timerWaiters.removeValue(forKey: key) }
            var waiters = ready.values.map(\.continuation)
            // A timer due now is work for ``run()`` as much as a queued task is.
            if deadline <= s.now {
                waiters += s.workWaiters.values
                s.workWaiters = [:]
            }
            return (s.nextID, waiters)
        }
        for waiter in ready { waiter.resume() }
        return TimerHandle(id: id)
    }

    package func cancel(_ timer: TimerHandle) {
        _ = state.withLock { $0.timers.removeValue(forKey: timer.id) }
    }

    /// How many tasks and timers the loop has run: a waiter compares two readings to tell
    /// whether anything ran in between (and may have written what it has not read yet).
    package var stepsRun: UInt64 { state.withLock { $0.steps } }

    /// Timers armed and not yet fired or cancelled (a test checks that nothing outlives a
    /// closed client).
    public var pendingTimerCount: Int { state.withLock { $0.timers.count } }

    /// The earliest armed deadline, if any.
    public var nextDeadline: Instant? { state.withLock { s in s.timers.values.map(\.deadline).min() } }

    /// Work queued and not yet run.
    public var pendingTaskCount: Int { state.withLock { $0.tasks.count } }

    /// Ends the loop, as a test ends: runs what is queued, then drops the timers still armed
    /// (they would never fire) and any work queued or armed from now on (a transport released
    /// after the test queues its own cancellation). What that work held is released with it, so
    /// a connection whose timer or task was left behind does not outlive the test in a cycle
    /// with its loop. Call ``pendingTimerCount`` first to check that nothing was left armed.
    public func shutdown() {
        run()
        let dropped = state.withLock { s -> (tasks: [@Sendable () -> Void], timers: [UInt64: Timer]) in
            s.isShutDown = true
            defer {
                s.tasks = []
                s.timers = [:]
            }
            return (s.tasks, s.timers)
        }
        _ = dropped  // released here, outside the lock
    }

    /// Runs `body` as loop work (on the loop's thread, as far as ``inEventLoop`` can tell),
    /// then everything it queued: what a test does to play the network or a caller.
    @discardableResult
    package func onLoop<T>(_ body: () throws -> T) rethrows -> T {
        enter()
        defer {
            leave()
            run()
        }
        return try body()
    }

    /// Runs queued work and the timers already due, including what they queue and arm for
    /// now, until nothing is left to do at the current time.
    public func run() {
        enter()
        defer { leave() }
        var steps = 0
        while let step = nextStep() {
            steps += 1
            precondition(steps <= maxStepsPerRun, "ManualLoop: more than \(maxStepsPerRun) steps at one instant")
            step()
        }
    }

    /// Moves time forward by `duration`: runs what is queued, then fires every timer whose
    /// deadline it passes, in deadline order, with ``now`` at each timer's deadline and the
    /// work each one queues run before the next; ends at the new time with its due work run.
    public func advanceTime(by duration: Duration) {
        precondition(duration >= .zero, "ManualLoop: time only moves forward")
        advanceTime(to: now.advanced(by: duration))
    }

    /// ``advanceTime(by:)`` to an instant.
    public func advanceTime(to target: Instant) {
        enter()
        defer { leave() }
        run()
        var steps = 0
        while let deadline = nextDeadline, deadline <= target {
            steps += 1
            precondition(steps <= maxStepsPerRun, "ManualLoop: more than \(maxStepsPerRun) timers in one advance")
            state.withLock { $0.now = max($0.now, deadline) }
            run()
        }
        state.withLock { $0.now = max($0.now, target) }
        run()
    }

    /// The next queued task, else the earliest timer due by the current time (removed).
    private func nextStep() -> (() -> Void)? {
        state.withLock { s -> (() -> Void)? in
            if !s.tasks.isEmpty {
                s.steps &+= 1
                return s.tasks.removeFirst()
            }
            let due = s.timers.values.filter { $0.deadline <= s.now }
            guard let first = due.min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }) else { return nil }
            s.timers[first.sequence] = nil
            s.steps &+= 1
            return first.body
        }
    }

    private func enter() {
        turn.lock()
        state.withLock { s in
            if s.depth == 0 { s.runner = pthread_self() }
            s.depth += 1
        }
    }

    private func leave() {
        state.withLock { s in
            s.depth -= 1
            if s.depth == 0 { s.runner = nil }
        }
        turn.unlock()
    }
}

/// A mutex its holder may take again: the loop's turn, held across a run that runs the loop.
private final class RecursiveMutex: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

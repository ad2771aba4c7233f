#if os(Linux)
import CLinux
import Glibc
@_spi(Transport) import RealtimeCore
import Synchronization

/// One thread running epoll that owns sockets and timers for many connections.
///
/// **Thread rule.** `execute(_:)` may be called from any thread; it queues the task and
/// wakes the loop through an eventfd. Everything else — `register(fd:interest:handler:)`,
/// `modify(_:interest:)`, `deregister(_:)`, `schedule(after:_:)`, `cancel(_:)` — is
/// loop-thread only and checked with `precondition(inEventLoop)`. Handlers and timer bodies
/// run on the loop thread, so they may touch loop-owned state without locks and need not be
/// `Sendable`; that loop-owned state lives in `LoopState`, which only the loop thread
/// touches (the one `nonisolated(unsafe)` below relies on this rule).
///
/// Readiness is level-triggered: a handler that does not consume what made its descriptor
/// ready is called again on the next iteration. Timers use `CLOCK_MONOTONIC` and fire in
/// deadline order (creation order for equal deadlines), no earlier than asked and typically
/// within a millisecond after (the epoll timeout has millisecond granularity).
///
/// The loop thread blocks `SIGPIPE` in its own signal mask (a per-thread setting, so the
/// host process's handlers are untouched) as a second line of defence behind
/// `MSG_NOSIGNAL` and `CURLOPT_NOSIGNAL`.
public final class EventLoop: Sendable {
    /// The process-wide loop (thread name `realtime-io`), started on first use and never
    /// shut down.
    public static let shared = EventLoop(name: "realtime-io", isShared: true)

    /// The thread name given at creation (truncated to 15 bytes for the kernel).
    public let name: String
    private let isShared: Bool
    private let epollFD: Int32
    private let wakeFD: Int32
    let queue = LockedValue(TaskQueue())
    /// `pthread_t` of the loop thread once it runs; 0 before.
    private let loopThread = Atomic<UInt>(0)
    /// The thread to join on shutdown; taken by the first `shutdown()`.
    private let joinable = LockedValue<pthread_t?>(nil)
    /// Loop-thread-only state; see the thread rule above.
    nonisolated(unsafe) let state = LoopState()
    /// This loop's network monitor, made on first use (see ``networkMonitor``).
    let monitorSlot = LockedValue<LinuxNetworkMonitor?>(nil)

    /// epoll `data.u64` reserved for the wake-up eventfd; registrations and timers count
    /// from 1.
    private static let wakeToken: UInt64 = 0
    private static let maxEventsPerWait: Int32 = 64

    struct TaskQueue {
        var tasks: [@Sendable () -> Void] = []
        /// Jobs of tasks that prefer this loop, enqueued from other threads.
        var jobs: [UnownedJob] = []
        var wakePending = false
        var stopped = false
    }

    /// Starts a private loop with its own thread. Call ``shutdown()`` when done, or the
    /// thread lives as long as the process.
    public convenience init(name: String) {
        self.init(name: name, isShared: false)
    }

    private init(name: String, isShared: Bool) {
        self.name = name
        self.isShared = isShared
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(ep >= 0, "epoll_create1 failed (errno \(rt_errno()))")
        let wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        precondition(wake >= 0, "eventfd failed (errno \(rt_errno()))")
        epollFD = ep
        wakeFD = wake
        var ev = epoll_event()
        ev.events = EPOLLIN.rawValue
        ev.data.u64 = Self.wakeToken
        precondition(epoll_ctl(ep, EPOLL_CTL_ADD, wake, &ev) == 0, "epoll_ctl(eventfd) failed")
        startThread()
    }

    /// True when called on this loop's thread.
    package var inEventLoop: Bool {
        let t = loopThread.load(ordering: .acquiring)
        return t != 0 && pthread_equal(pthread_self(), t) != 0
    }

    /// Runs `task` on the loop thread, after the tasks queued before it. Callable from any
    /// thread (also from the loop itself: the task then runs on a later iteration, never
    /// inline). After ``shutdown()`` tasks are discarded without running.
    package func execute(_ task: @escaping @Sendable () -> Void) {
        _ = enqueueUnlessStopped { $0.tasks.append(task) }
    }

    /// Queues with `add` under the queue's lock and wakes the loop if it may be waiting;
    /// false (nothing queued) after ``shutdown()``.
    func enqueueUnlessStopped(_ add: (inout TaskQueue) -> Void) -> Bool {
        let (queued, mustWake): (Bool, Bool) = queue.withLock { q in
            if q.stopped { return (false, false) }
            add(&q)
            if q.wakePending { return (true, false) }
            q.wakePending = true
            return (true, true)
        }
        if mustWake {
            var one: UInt64 = 1
            // EAGAIN only when the counter is at its maximum: the loop is awake anyway.
            _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
        }
        return queued
    }

    /// Stops the loop thread and closes its descriptors. Registrations and timers still
    /// pending are dropped without being called; tasks queued afterwards are discarded.
    /// Blocks until the thread has exited, unless called on the loop thread itself.
    /// Not allowed on ``shared``.
    public func shutdown() {
        precondition(!isShared, "EventLoop.shared cannot be shut down")
        // Its netlink socket is registered here: closed before the loop stops.
        monitorSlot.withLock { slot in
            defer { slot = nil }
            return slot
        }?.stop()
        execute { [self] in state.stopping = true }
        let thread: pthread_t? = joinable.withLock { t in
            defer { t = nil }
            return t
        }
        guard let thread else { return }
        if inEventLoop {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    // MARK: Loop-thread-only API

    /// Watches `fd` for `interest`; `handler` runs on the loop thread with the conditions
    /// that are ready (always including `error`/`hangup` when they occur).
    ///
    /// The descriptor should be non-blocking. If the kernel refuses it (for example a
    /// regular file), the handler is called once with `.error` on a later iteration.
    package func register(fd: Int32, interest: IOInterest, handler: @escaping (IOInterest) -> Void) -> IORegistration {
        precondition(inEventLoop, "EventLoop.register must be called on the loop thread")
        let id = state.makeID()
        state.registrations[id] = LoopState.Registration(fd: fd, interest: interest, handler: handler)
        state.registrationPeak = max(state.registrationPeak, state.registrations.count)
        var ev = epoll_event()
        ev.events = Self.epollMask(interest)
        ev.data.u64 = id
        if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &ev) != 0 {
            state.registrations[id]?.failed = true
            execute { [self] in
                // Still registered (not deregistered in the meantime): report the failure.
                if let r = state.registrations[id] { r.handler(.error) }
            }
        }
        return IORegistration(id: id, fd: fd)
    }

    /// Changes what a registration watches. Ignored for a registration that is gone.
    package func modify(_ registration: IORegistration, interest: IOInterest) {
        precondition(inEventLoop, "EventLoop.modify must be called on the loop thread")
        guard let r = state.registrations[registration.id], !r.failed else { return }
        guard r.interest != interest else { return }
        state.registrations[registration.id]?.interest = interest
        var ev = epoll_event()
        ev.events = Self.epollMask(interest)
        ev.data.u64 = registration.id
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, registration.fd, &ev)
    }

    /// Stops watching. The handler is not called again, even for readiness already
    /// collected in the current iteration. Call it before closing the descriptor.
    package func deregister(_ registration: IORegistration) {
        precondition(inEventLoop, "EventLoop.deregister must be called on the loop thread")
        guard let r = state.registrations.removeValue(forKey: registration.id) else { return }
        if !r.failed {
            var ev = epoll_event()
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, registration.fd, &ev)
        }
        trimHeapAfterMassClose()
    }

    /// Once at least ``massCloseTrimThreshold`` connections have gone and at most half of the
    /// peak remain, returns the heap's free pages to the kernel (`malloc_trim`) once closes
    /// have stopped for a second, so that the rest of the closing (more closes, the owners'
    /// objects released on other threads) has freed its memory too.
    ///
    /// Why: thousands of connections leave their freed memory scattered between live
    /// allocations, where glibc never gives it back on its own (it only trims the top of a
    /// heap). Measured with the `scale` benchmark: after closing 1,000 connections RSS stayed
    /// 30–100 MiB above where it started, within a few MiB once trimmed. The trim walks the
    /// heap once (milliseconds), which only a mass close pays.
    private func trimHeapAfterMassClose() {
        let live = state.registrations.count
        if state.trimDeadline != nil {
            state.trimDeadline = Self.monotonicNanoseconds() &+ Self.trimQuietPeriod
            return
        }
        guard state.registrationPeak - live >= Self.massCloseTrimThreshold, live <= state.registrationPeak / 2 else { return }
        state.trimDeadline = Self.monotonicNanoseconds() &+ Self.trimQuietPeriod
        armTrim(after: Self.trimQuietPeriod)
    }

    private func armTrim(after nanoseconds: UInt64) {
        schedule(after: .nanoseconds(Int64(nanoseconds))) { [self] in
            guard let deadline = state.trimDeadline else { return }
            let now = Self.monotonicNanoseconds()
            if now < deadline {
                armTrim(after: deadline - now)
                return
            }
            _ = rt_malloc_trim()
            state.trimDeadline = nil
            state.registrationPeak = state.registrations.count
        }
    }

    /// Quiet time after the last close before the trim, nanoseconds.
    static let trimQuietPeriod: UInt64 = 1_000_000_000

    /// Connections that must close (since the last trim) before the heap is trimmed.
    static let massCloseTrimThreshold = 512

    /// Runs `body` once on the loop thread after `delay` (monotonic clock; negative delays
    /// count as zero). A timer created by a firing timer never fires in the same pass.
    @discardableResult
    package func schedule(after delay: Duration, _ body: @escaping () -> Void) -> TimerHandle {
        precondition(inEventLoop, "EventLoop.schedule must be called on the loop thread")
        let id = state.makeID()
        let deadline = Self.monotonicNanoseconds() &+ Self.nanoseconds(delay)
        state.timers.insert(TimerHeap.Entry(deadline: deadline, sequence: id))
        state.timerBodies[id] = body
        return TimerHandle(id: id)
    }

    /// Cancels a pending timer; does nothing if it already fired or was cancelled.
    package func cancel(_ timer: TimerHandle) {
        precondition(inEventLoop, "EventLoop.cancel must be called on the loop thread")
        guard state.timerBodies.removeValue(forKey: timer.id) != nil else { return }
        // Lazy deletion keeps cancel O(1); compact when dead entries dominate the heap.
        if state.timers.count > 64 && state.timers.count > 2 * state.timerBodies.count {
            let live = state.timerBodies
            state.timers.compact { live[$0.sequence] != nil }
        }
    }

    /// Number of live registrations (loop thread only; for tests and diagnostics).
    package var registrationCount: Int {
        precondition(inEventLoop, "EventLoop.registrationCount must be read on the loop thread")
        return state.registrations.count
    }

    /// The loop's one instance of `T`, made by `make` on first use (loop thread only): state
    /// that every connection on the loop shares instead of each keeping its own (the SSE
    /// transport's current arena block, for instance).
    package func local<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
        precondition(inEventLoop, "EventLoop.local must be called on the loop thread")
        if let existing = state.locals[ObjectIdentifier(type)] { return unsafeDowncast(existing, to: T.self) }
        let made = make()
        state.locals[ObjectIdentifier(type)] = made
        return made
    }

    /// What the loop has done since it started (loop thread only; for benchmarks and
    /// diagnostics: an idle loop should wake no more often than its connections' timers
    /// ask, which ``Statistics/timersFired`` and ``Statistics/wakeUps`` show).
    package var statistics: Statistics {
        precondition(inEventLoop, "EventLoop.statistics must be read on the loop thread")
        return state.statistics
    }

    /// Counters kept by the loop thread.
    package struct Statistics: Sendable {
        /// Returns from `epoll_wait` (readiness, a queued task, a timer or a signal).
        package var wakeUps: UInt64 = 0
        /// Timer bodies run.
        package var timersFired: UInt64 = 0

        package init() {}
    }

    /// Number of pending timers (loop thread only; for tests and diagnostics).
    package var pendingTimerCount: Int {
        precondition(inEventLoop, "EventLoop.pendingTimerCount must be read on the loop thread")
        return state.timerBodies.count
    }
}

// MARK: - The loop itself

extension EventLoop {
    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var attr = pthread_attr_t()
        pthread_attr_init(&attr)
        defer { pthread_attr_destroy(&attr) }
        var thread = pthread_t()
        let rc = pthread_create(&thread, &attr, { arg in
            // The thread owns one reference to its loop until `run` returns.
            let loop = Unmanaged<EventLoop>.fromOpaque(arg!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed (\(rc))")
        joinable.withLock { $0 = thread }
    }

    private func run() {
        loopThread.store(pthread_self(), ordering: .releasing)
        var threadName = Array(name.utf8.prefix(15))
        threadName.append(0)
        threadName.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { _ = rt_set_thread_name($0.baseAddress!) }
        }
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeOnly, nil)

        var events = [epoll_event](repeating: epoll_event(), count: Int(Self.maxEventsPerWait))
        var batch: [@Sendable () -> Void] = []
        while !state.stopping {
            let timeout = nextTimeoutMilliseconds()
            let n = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Self.maxEventsPerWait, timeout) }
            // Without timers at the wait, any armed during the pass fall due after it: no
            // clock read on the hot path.
            let polledAt = state.timers.isEmpty ? 0 : Self.monotonicNanoseconds()
            state.statistics.wakeUps &+= 1
            if n < 0 {
                let e = rt_errno()
                precondition(e == EINTR, "epoll_wait failed (errno \(e))")
                continue
            }
            for i in 0..<Int(n) {
                let token = events[i].data.u64
                let mask = events[i].events
                if token == Self.wakeToken {
                    runQueuedTasks(&batch)
                } else if let r = state.registrations[token] {
                    r.handler(Self.interest(fromEpoll: mask))
                }
                if state.stopping { break }
            }
            if !state.stopping { fireDueTimers(polledAt: polledAt) }
            if !state.stopping { runReadyJobs() }
        }
        let orphans: [UnownedJob] = queue.withLock { q in
            q.stopped = true
            q.tasks.removeAll()
            defer { q.jobs.removeAll() }
            return q.jobs
        }
        // Tasks that still prefer this loop continue on the global executor.
        for job in state.readyJobs + orphans { globalConcurrentExecutor.enqueue(job) }
        state.readyJobs.removeAll()
        // Drop handlers and timer bodies here, on the loop thread that owns them. The curl
        // multi handle goes first: its cleanup still reports sockets to deregister.
        state.curlDriver = nil
        state.locals.removeAll()
        state.registrations.removeAll()
        state.timerBodies.removeAll()
        state.timers = TimerHeap()
        close(wakeFD)
        close(epollFD)
    }

    private func runQueuedTasks(_ batch: inout [@Sendable () -> Void]) {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, MemoryLayout<UInt64>.size)
        queue.withLock { q in
            swap(&batch, &q.tasks)
            if !q.jobs.isEmpty {
                state.readyJobs.append(contentsOf: q.jobs)
                q.jobs.removeAll(keepingCapacity: true)
            }
            q.wakePending = false
        }
        for task in batch {
            task()
            if state.stopping { break }
        }
        batch.removeAll(keepingCapacity: true)
    }

    /// Fires the timers that were due when `epoll_wait` returned at `polledAt`. One that fell
    /// due while this pass's handlers ran waits for the next pass (a zero-timeout wait), whose
    /// readiness is handled first: a heartbeat or idle timer never mistakes bytes that a
    /// long pass left unread for silence.
    private func fireDueTimers(polledAt now: UInt64) {
        guard !state.timers.isEmpty else { return }
        // Timers created while firing have ids >= limit and wait for the next pass, so a
        // zero-delay timer that re-arms itself cannot starve I/O.
        let limit = state.peekNextID()
        while let top = state.timers.first, top.deadline <= now, top.sequence < limit {
            state.timers.removeFirst()
            guard let body = state.timerBodies.removeValue(forKey: top.sequence) else { continue }
            state.statistics.timersFired &+= 1
            body()
            if state.stopping { return }
        }
    }

    private func nextTimeoutMilliseconds() -> Int32 {
        // Drop cancelled entries from the top so they do not cause early wake-ups.
        while let top = state.timers.first, state.timerBodies[top.sequence] == nil {
            state.timers.removeFirst()
        }
        if !state.readyJobs.isEmpty { return 0 }
        guard let top = state.timers.first else { return -1 }
        let now = Self.monotonicNanoseconds()
        if top.deadline <= now { return 0 }
        // Round up: waking early would just spin until the deadline.
        let ms = (top.deadline - now + 999_999) / 1_000_000
        return ms > UInt64(Int32.max) ? Int32.max : Int32(ms)
    }

    // MARK: Conversions

    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func nanoseconds(_ d: Duration) -> UInt64 {
        let (seconds, attoseconds) = d.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        if seconds >= Int64(UInt64.max / 1_000_000_000) - 1 { return UInt64.max / 2 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }

    private static func epollMask(_ interest: IOInterest) -> UInt32 {
        var m: UInt32 = 0
        if interest.contains(.readable) { m |= EPOLLIN.rawValue }
        if interest.contains(.writable) { m |= EPOLLOUT.rawValue }
        return m
    }

    private static func interest(fromEpoll mask: UInt32) -> IOInterest {
        var i: IOInterest = []
        if mask & EPOLLIN.rawValue != 0 { i.insert(.readable) }
        if mask & EPOLLOUT.rawValue != 0 { i.insert(.writable) }
        if mask & EPOLLERR.rawValue != 0 { i.insert(.error) }
        if mask & EPOLLHUP.rawValue != 0 { i.insert(.hangup) }
        if mask & EPOLLRDHUP.rawValue != 0 { i.insert(.hangup) }
        return i
    }
}
#endif

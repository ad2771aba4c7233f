extension ClientStateMachine {
    /// What the driver does after one event: every entry point of the machine returns one.
    /// The driver records the emissions and takes the objects the other fields act on (the
    /// live transport, the timer and work tasks, the monitor's observation, the senders'
    /// continuations) under its lock, then carries out the rest after releasing it, in one
    /// fixed order: logs, what ends or cancels (tasks, the transport, the observation, the
    /// consumer's events, the senders), what starts (timers, tasks), then the requests it
    /// answers at once (the retry budget, the consumer's progress, the next attempt), and
    /// last the emissions.
    ///
    /// Effects compose with `+` (the machine builds one step from several rules). A field that
    /// holds one request holds at most one per step.
    package struct Effects: Sendable {
        /// Set when the event was stale and changed nothing (see ``Ignored``); the other
        /// fields are then empty.
        package var ignored: Ignored?
        /// Events for the consumer's buffer, numbered in emission order.
        package var emissions: [Emission] = []
        /// End the consumer's events after what was emitted (the policy stopped).
        package var finish = false
        /// Drop everything buffered for the consumer and end its events now (user close).
        package var terminate = false
        /// Records for the log handler, in order.
        package var logs: [ClientLogRecord] = []
        /// Load the cursor from the store, then report ``ClientStateMachine/cursorLoaded(_:now:)``.
        package var loadCursor = false
        /// Prepare attempt `plan.attempt` (headers, URL, transport), then report
        /// ``ClientStateMachine/transportMade(attempt:now:)`` or
        /// ``ClientStateMachine/attemptFailedToStart(attempt:error:now:)``.
        package var connect: ConnectPlan?
        /// Disarm the timer (before ``startTimer``, when both are set).
        package var cancelTimer = false
        /// Call ``ClientStateMachine/timerFired(_:now:)`` with `token` at `deadline` (client
        /// clock). At most one timer is armed.
        package var startTimer: (token: UInt64, deadline: Duration)?
        /// A request to the shared retry budget.
        package var budget: BudgetRequest?
        /// What to do to the live transport.
        package var transport: TransportCommand?
        /// Stop observing the network monitor (the client is done).
        package var stopObservingNetwork = false
        /// The next attempt waits for the consumer to process what it was given: report the
        /// consumer's progress (``ClientStateMachine/consumerProcessed(_:now:)``) now and
        /// whenever it processes more, until the next ``connect``. (Outside such a wait the
        /// machine needs no report: the consumer's hot path stays off the client's lock.)
        package var awaitConsumer = false
        /// Cancel preparation work in flight (credential fetches, cursor loading, the on-open hook).
        package var cancelWork = false
        /// Run the on-open hook for `attempt`'s open connection (which resumed from `cursor`),
        /// in a task that ``cancelWork`` cancels; report
        /// ``ClientStateMachine/openHookFinished(attempt:error:now:)`` when it returns or
        /// throws, or with `openHookFailed` at `deadline` (client clock).
        package var openHook: (attempt: Int, info: ConnectionInfo, cursor: String?, deadline: Duration)?
        /// Hand the outbox to the open connection, in a task of its own: ask
        /// ``ClientStateMachine/nextQueuedSend()`` for one message at a time, send it on the
        /// attempt it names and report ``ClientStateMachine/queuedSendSettled(id:attempt:error:now:)``,
        /// until it answers nil.
        package var drainSends = false
        /// Arm (replacing the one armed before) or disarm the outbox's expiry timer, which
        /// calls ``ClientStateMachine/sendExpiryFired(now:)``.
        package var sendExpiry: SendExpiry?
        /// These sends are over: return to their callers (`error` nil: sent), in this order.
        package var resolvedSends: [SendResolution] = []

        package init() {}

        /// Nothing to do.
        package static var nothing: Effects { Effects() }

        /// Whether the driver has nothing to do.
        package var isEmpty: Bool {
            emissions.isEmpty && !finish && !terminate && logs.isEmpty && !loadCursor && connect == nil && !cancelTimer
                && startTimer == nil && budget == nil && transport == nil && !stopObservingNetwork && !awaitConsumer
                && !cancelWork && openHook == nil && !drainSends && sendExpiry == nil && resolvedSends.isEmpty
        }
    }

    /// Why an event was ignored: it is stale (the world moved on since it was sent), which is
    /// expected of concurrent reports. An event that cannot happen is a `preconditionFailure`.
    package enum Ignored: Sendable, Hashable {
        /// The event belongs to an attempt that is over or was superseded (a late message,
        /// open, terminator or end of its transport, a late on-open hook report).
        case staleAttempt
        /// A timer fired whose arming was withdrawn (cancelled, or replaced by a newer one).
        case staleTimer
        /// A retry-budget answer to a request that a suspension, restart or network loss
        /// withdrew (a new request follows when the wait starts again).
        case staleBudgetAnswer
        /// A consumer report overtaken by a later one.
        case staleProgress
        /// The client finished or was closed: the event came after the end.
        case clientDone
        /// The transport reported what its attempt already had (a second open) or what needs
        /// an open first (a terminator before the open): the ``Transport`` contract was broken.
        case outOfOrder
    }

    /// One event for the consumer, with its sequence number (emission order).
    package struct Emission: Sendable {
        package var event: ClientEvent
        package var sequence: UInt64
    }

    package enum BudgetRequest: Sendable, Hashable {
        /// Book a reconnect slot no earlier than `after` from now, then report
        /// ``ClientStateMachine/retrySlotReserved(_:now:)`` with the booked delay.
        case reserveSlot(after: Duration)
        /// Ask to admit the attempt now, then report
        /// ``ClientStateMachine/attemptAdmitted(wait:lateness:now:)``.
        case admitAttempt
    }

    package enum TransportCommand: Sendable, Hashable {
        /// Close the live transport in an orderly way (suspend, restart, end of reply, user close).
        case close
        /// End the live transport at once (its network path is gone).
        case abort
        /// Ask the live transport to prove it is alive within the timeout (path change).
        case verify(within: Duration)
    }

    package enum SendExpiry: Sendable, Hashable {
        /// Call ``ClientStateMachine/sendExpiryFired(now:)`` at `deadline` (client clock).
        case arm(deadline: Duration)
        case disarm
    }
}

extension ClientStateMachine.Effects {
    /// An ignored event (see ``ClientStateMachine/Ignored``).
    package static func ignored(_ reason: ClientStateMachine.Ignored) -> Self {
        var e = Self()
        e.ignored = reason
        return e
    }

    static func log(_ record: ClientLogRecord) -> Self {
        var e = Self()
        e.logs = [record]
        return e
    }

    static func connect(_ plan: ClientStateMachine.ConnectPlan) -> Self {
        var e = Self()
        e.connect = plan
        return e
    }

    static func startTimer(token: UInt64, deadline: Duration) -> Self {
        var e = Self()
        e.startTimer = (token, deadline)
        return e
    }

    static func budget(_ request: ClientStateMachine.BudgetRequest) -> Self {
        var e = Self()
        e.budget = request
        return e
    }

    static func transport(_ command: ClientStateMachine.TransportCommand) -> Self {
        var e = Self()
        e.transport = command
        return e
    }

    static func openHook(attempt: Int, info: ConnectionInfo, cursor: String?, deadline: Duration) -> Self {
        var e = Self()
        e.openHook = (attempt, info, cursor, deadline)
        return e
    }

    static func sendExpiry(_ change: ClientStateMachine.SendExpiry) -> Self {
        var e = Self()
        e.sendExpiry = change
        return e
    }

    static func resolveSends(_ resolutions: [ClientStateMachine.SendResolution]) -> Self {
        var e = Self()
        e.resolvedSends = resolutions
        return e
    }

    static func flags(
        finish: Bool = false, terminate: Bool = false, loadCursor: Bool = false, cancelTimer: Bool = false,
        stopObservingNetwork: Bool = false, awaitConsumer: Bool = false, cancelWork: Bool = false, drainSends: Bool = false
    ) -> Self {
        var e = Self()
        e.finish = finish
        e.terminate = terminate
        e.loadCursor = loadCursor
        e.cancelTimer = cancelTimer
        e.stopObservingNetwork = stopObservingNetwork
        e.awaitConsumer = awaitConsumer
        e.cancelWork = cancelWork
        e.drainSends = drainSends
        return e
    }

    /// `lhs`, then `rhs`: lists are concatenated, flags combined; a single request comes from
    /// at most one side (a step never asks twice).
    package static func + (lhs: Self, rhs: Self) -> Self {
        var e = lhs
        e += rhs
        return e
    }

    package static func += (lhs: inout Self, rhs: Self) {
        assert(lhs.ignored == nil && rhs.ignored == nil, "an ignored event has no effects to combine")
        lhs.emissions += rhs.emissions
        lhs.finish = lhs.finish || rhs.finish
        lhs.terminate = lhs.terminate || rhs.terminate
        lhs.logs += rhs.logs
        lhs.loadCursor = lhs.loadCursor || rhs.loadCursor
        lhs.connect = single(lhs.connect, rhs.connect, "connect")
        lhs.cancelTimer = lhs.cancelTimer || rhs.cancelTimer
        assert(lhs.startTimer == nil || rhs.startTimer == nil, "two timers in one step")
        lhs.startTimer = rhs.startTimer ?? lhs.startTimer
        lhs.budget = single(lhs.budget, rhs.budget, "budget request")
        lhs.transport = single(lhs.transport, rhs.transport, "transport command")
        lhs.stopObservingNetwork = lhs.stopObservingNetwork || rhs.stopObservingNetwork
        lhs.awaitConsumer = lhs.awaitConsumer || rhs.awaitConsumer
        lhs.cancelWork = lhs.cancelWork || rhs.cancelWork
        assert(lhs.openHook == nil || rhs.openHook == nil, "two on-open hooks in one step")
        lhs.openHook = rhs.openHook ?? lhs.openHook
        lhs.drainSends = lhs.drainSends || rhs.drainSends
        lhs.sendExpiry = rhs.sendExpiry ?? lhs.sendExpiry
        lhs.resolvedSends += rhs.resolvedSends
    }

    private static func single<T>(_ lhs: T?, _ rhs: T?, _ what: String) -> T? {
        assert(lhs == nil || rhs == nil, "two of one \(what) in one step")
        return rhs ?? lhs
    }
}

extension ClientStateMachine {
    /// One thing the driver does for the machine, typed. A step of the machine returns them in
    /// the order they must be carried out (``Effects/actions``).
    package enum Action: Sendable {
        /// A record for the log handler.
        case log(ClientLogRecord)
        /// An event for the consumer's buffer, numbered in emission order.
        case emit(Emission)
        /// End the consumer's events after what was emitted (the policy stopped).
        case finish
        /// Drop everything buffered for the consumer and end its events now (user close).
        case terminate
        /// Load the cursor from the store, then report ``ClientStateMachine/cursorLoaded(_:now:)``.
        case loadCursor
        /// Prepare attempt `plan.attempt` (headers, URL, transport), then report
        /// ``ClientStateMachine/transportMade(attempt:now:)`` or
        /// ``ClientStateMachine/attemptFailedToStart(attempt:error:now:)``.
        case connect(ConnectPlan)
        /// Disarm the timer.
        case cancelTimer
        /// Call ``ClientStateMachine/timerFired(_:now:)`` with `token` at `deadline` (client
        /// clock). At most one timer is armed.
        case startTimer(token: UInt64, deadline: Duration)
        /// A request to the shared retry budget.
        case budget(BudgetRequest)
        /// Something to do to the live transport.
        case transport(TransportCommand)
        /// Stop observing the network monitor (the client is done).
        case stopObservingNetwork
        /// The next attempt waits for the consumer to process what it was given: report the
        /// consumer's progress (``ClientStateMachine/consumerProcessed(_:now:)``) now and
        /// whenever it processes more, until the next ``connect(_:)``. (Outside such a wait the
        /// machine needs no report: the consumer's hot path stays off the client's lock.)
        case awaitConsumer
        /// Cancel preparation work in flight (credential fetches, cursor loading, the on-open hook).
        case cancelWork
        /// Run the on-open hook for `attempt`'s open connection (which resumed from `cursor`),
        /// as work that ``cancelWork`` cancels; report
        /// ``ClientStateMachine/openHookFinished(attempt:error:now:)`` when it returns or
        /// throws, or with `openHookFailed` at `deadline` (client clock).
        case openHook(attempt: Int, info: ConnectionInfo, cursor: String?, deadline: Duration)
        /// Hand the outbox to the open connection: ask ``ClientStateMachine/nextQueuedSend()``
        /// for one message at a time, send it on the attempt it names and report
        /// ``ClientStateMachine/queuedSendSettled(id:attempt:error:now:)``, until it answers nil.
        case drainSends
        /// Arm (replacing the one armed before) or disarm the outbox's expiry timer, which
        /// calls ``ClientStateMachine/sendExpiryFired(now:)``.
        case sendExpiry(SendExpiry)
        /// These sends are over: return to their callers (`error` nil: sent), in this order.
        case resolveSends([SendResolution])

        /// Whether the driver answers it by feeding the machine again (the retry budget, the
        /// consumer's progress, the next attempt): those are carried out after the step's
        /// other actions, in their order.
        package var isAnsweredAtOnce: Bool {
            switch self {
            case .budget, .awaitConsumer, .connect: return true
            default: return false
            }
        }
    }

    /// What the driver does after one event: every entry point of the machine returns one. The
    /// driver records what it must under its lock (the emissions go into the consumer's
    /// buffer; it takes the objects the other actions act on: the live transport, the timer
    /// and work tasks, the monitor's observation, the senders' continuations), then carries
    /// out ``actions`` after releasing it, in order, the ones it answers at once
    /// (``Action/isAnsweredAtOnce``) last.
    ///
    /// Effects compose with `+` (the machine builds one step from several rules): the actions
    /// of the left side, then those of the right. A step holds at most one `connect`, one
    /// budget request and one transport command.
    package struct Effects: Sendable {
        /// Set when the event was stale and changed nothing (see ``Ignored``); there are no
        /// actions then.
        package var ignored: Ignored?
        /// What to do, in order.
        package private(set) var actions: [Action] = []

        package init() {}

        init(_ action: Action) {
            actions = [action]
        }

        /// Nothing to do.
        package static var nothing: Effects { Effects() }

        /// Whether the driver has nothing to do.
        package var isEmpty: Bool { actions.isEmpty }
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
        /// an open first (a terminator before the open): the `Transport` contract was broken.
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
        /// Close the live transport with this WebSocket close code (the application failed it).
        case closeWith(code: UInt16)
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

    static func log(_ record: ClientLogRecord) -> Self { Self(.log(record)) }

    static func connect(_ plan: ClientStateMachine.ConnectPlan) -> Self { Self(.connect(plan)) }

    static func startTimer(token: UInt64, deadline: Duration) -> Self { Self(.startTimer(token: token, deadline: deadline)) }

    static func budget(_ request: ClientStateMachine.BudgetRequest) -> Self { Self(.budget(request)) }

    static func transport(_ command: ClientStateMachine.TransportCommand) -> Self { Self(.transport(command)) }

    static func openHook(attempt: Int, info: ConnectionInfo, cursor: String?, deadline: Duration) -> Self {
        Self(.openHook(attempt: attempt, info: info, cursor: cursor, deadline: deadline))
    }

    static func sendExpiry(_ change: ClientStateMachine.SendExpiry) -> Self { Self(.sendExpiry(change)) }

    static func resolveSends(_ resolutions: [ClientStateMachine.SendResolution]) -> Self { Self(.resolveSends(resolutions)) }

    static func emit(_ emission: ClientStateMachine.Emission) -> Self { Self(.emit(emission)) }

    /// The flags that are set, as actions in this order: what ends (cancelling the timer and
    /// work, the network observation, the consumer's events), then what starts.
    static func flags(
        finish: Bool = false, terminate: Bool = false, loadCursor: Bool = false, cancelTimer: Bool = false,
        stopObservingNetwork: Bool = false, awaitConsumer: Bool = false, cancelWork: Bool = false, drainSends: Bool = false
    ) -> Self {
        var e = Self()
        let flagged: [(Bool, ClientStateMachine.Action)] = [
            (cancelTimer, .cancelTimer), (cancelWork, .cancelWork), (stopObservingNetwork, .stopObservingNetwork),
            (finish, .finish), (terminate, .terminate), (loadCursor, .loadCursor), (drainSends, .drainSends),
            (awaitConsumer, .awaitConsumer),
        ]
        for (set, action) in flagged where set { e.actions.append(action) }
        return e
    }

    /// `lhs`, then `rhs`.
    package static func + (lhs: Self, rhs: Self) -> Self {
        var e = lhs
        e += rhs
        return e
    }

    package static func += (lhs: inout Self, rhs: Self) {
        assert(lhs.ignored == nil && rhs.ignored == nil, "an ignored event has no effects to combine")
        lhs.actions += rhs.actions
        assert(lhs.count { if case .connect = $0 { true } else { false } } <= 1, "two connects in one step")
        assert(lhs.count { if case .budget = $0 { true } else { false } } <= 1, "two budget requests in one step")
        assert(lhs.count { if case .transport = $0 { true } else { false } } <= 1, "two transport commands in one step")
        assert(lhs.count { if case .startTimer = $0 { true } else { false } } <= 1, "two timers in one step")
        assert(lhs.count { if case .openHook = $0 { true } else { false } } <= 1, "two on-open hooks in one step")
    }

    private func count(where matches: (ClientStateMachine.Action) -> Bool) -> Int {
        actions.reduce(0) { $0 + (matches($1) ? 1 : 0) }
    }
}

extension ClientStateMachine.Effects {
    // Reading what a step asked for, for the machine's tests and invariants.

    package var emissions: [ClientStateMachine.Emission] {
        actions.compactMap { if case .emit(let e) = $0 { e } else { nil } }
    }
    package var logs: [ClientLogRecord] {
        actions.compactMap { if case .log(let r) = $0 { r } else { nil } }
    }
    package var connect: ClientStateMachine.ConnectPlan? {
        actions.lazy.compactMap { if case .connect(let p) = $0 { p } else { nil } }.first
    }
    package var transport: ClientStateMachine.TransportCommand? {
        actions.lazy.compactMap { if case .transport(let c) = $0 { c } else { nil } }.first
    }
    package var budget: ClientStateMachine.BudgetRequest? {
        actions.lazy.compactMap { if case .budget(let r) = $0 { r } else { nil } }.first
    }
    package var startTimer: (token: UInt64, deadline: Duration)? {
        actions.lazy.compactMap { if case .startTimer(let t, let d) = $0 { (t, d) } else { nil } }.first
    }
    package var openHook: (attempt: Int, info: ConnectionInfo, cursor: String?, deadline: Duration)? {
        actions.lazy.compactMap { if case .openHook(let a, let i, let c, let d) = $0 { (a, i, c, d) } else { nil } }.first
    }
    package var sendExpiry: ClientStateMachine.SendExpiry? {
        actions.compactMap { action -> ClientStateMachine.SendExpiry? in
            if case .sendExpiry(let x) = action { return x }
            return nil
        }.last
    }
    package var resolvedSends: [ClientStateMachine.SendResolution] {
        actions.flatMap { action -> [ClientStateMachine.SendResolution] in
            if case .resolveSends(let r) = action { return r }
            return []
        }
    }
    package var finish: Bool { has { if case .finish = $0 { true } else { false } } }
    package var terminate: Bool { has { if case .terminate = $0 { true } else { false } } }
    package var loadCursor: Bool { has { if case .loadCursor = $0 { true } else { false } } }
    package var cancelTimer: Bool { has { if case .cancelTimer = $0 { true } else { false } } }
    package var stopObservingNetwork: Bool { has { if case .stopObservingNetwork = $0 { true } else { false } } }
    package var awaitConsumer: Bool { has { if case .awaitConsumer = $0 { true } else { false } } }
    package var cancelWork: Bool { has { if case .cancelWork = $0 { true } else { false } } }
    package var drainSends: Bool { has { if case .drainSends = $0 { true } else { false } } }

    private func has(_ matches: (ClientStateMachine.Action) -> Bool) -> Bool { actions.contains(where: matches) }
}

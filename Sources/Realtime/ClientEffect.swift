/// What the driver does after releasing the client's lock: the state machine's actions, with
/// the objects they act on taken from ``ClientStorage`` under the lock.
enum ClientEffect: Sendable {
    /// Move these events (and the end, if `finish`) into the consumer's buffer; the thread
    /// holds the emitter's role (see ``ClientStorage/emit(_:finish:)``).
    case emit([ClientStorage.Envelope], finish: Bool)
    case terminate
    case loadCursor
    case connect(ClientStateMachine.ConnectPlan)
    case startTimer(token: UInt64, deadline: Duration)
    case cancel(Task<Void, Never>)
    case cancelAll([Task<Void, Never>])
    case reserveRetrySlot(after: Duration)
    case admitAttempt
    case awaitConsumer
    case close(any Transport)
    case abort(any Transport)
    case verify(any Transport, within: Duration)
    case stopObserving(any NetworkMonitor, NetworkObservation)
    case log(ClientLogRecord)
    /// The state changed: wake the iterators of `stateChanges`.
    case publish([CheckedContinuation<Void, Never>])
    /// Start handing the outbox to the open connection.
    case drainSends
    /// Run the on-open hook (``ClientStateMachine/Action/runOpenHook(attempt:info:deadline:)``).
    case runOpenHook(attempt: Int, info: ConnectionInfo, deadline: Duration)
    /// Arm the outbox's expiry timer (arming number `generation`).
    case armSendExpiry(deadline: Duration, generation: UInt64)
    /// Return to these senders (error nil: sent).
    case resumeSenders([(CheckedContinuation<Void, any Error>, RealtimeError?)])
}

extension ClientStorage.State {
    /// Records the machine's actions under the lock: queues emissions, takes the objects the
    /// other actions need, and notes a state change. Returns what to do after the lock.
    mutating func absorb(_ actions: [ClientStateMachine.Action], into effects: inout [ClientEffect]) {
        for action in actions {
            switch action {
            case .emit(let event, let sequence):
                undelivered.append(ClientStorage.Envelope(event: event, sequence: sequence))
            case .finish:
                finishPending = true
            case .terminate:
                undelivered = []
                finishPending = false
                effects.append(.terminate)
            case .loadCursor:
                effects.append(.loadCursor)
            case .connect(let plan):
                effects.append(.connect(plan))
            case .startTimer(let token, let deadline):
                effects.append(.startTimer(token: token, deadline: deadline))
            case .cancelTimer:
                if let t = timer { effects.append(.cancel(t.task)) }
                timer = nil
            case .reserveRetrySlot(let after):
                effects.append(.reserveRetrySlot(after: after))
            case .admitAttempt:
                effects.append(.admitAttempt)
            case .awaitConsumer:
                effects.append(.awaitConsumer)
            case .closeTransport, .abortTransport, .verifyConnection:
                absorbTransportAction(action, into: &effects)
            case .stopObservingNetwork:
                if let o = observation { effects.append(.stopObserving(o.monitor, o.observation)) }
                observation = nil
            case .cancelWork:
                effects.append(.cancelAll(Array(work.values)))
                work = [:]
            case .log(let record):
                effects.append(.log(record))
            case .runOpenHook(let attempt, let info, let deadline):
                effects.append(.runOpenHook(attempt: attempt, info: info, deadline: deadline))
            case .drainSends, .armSendExpiry, .disarmSendExpiry, .resolveSends:
                absorbSendAction(action, into: &effects)
            }
        }
    }

    private mutating func absorbTransportAction(_ action: ClientStateMachine.Action, into effects: inout [ClientEffect]) {
        guard let live = transport?.transport else { return }
        switch action {
        case .closeTransport:
            effects.append(.close(live))
            if machine.isTerminal { transport = nil }
        case .abortTransport:
            effects.append(.abort(live))
        case .verifyConnection(let within):
            effects.append(.verify(live, within: within))
        default:
            break
        }
    }

    /// After the machine ran: takes the emitter's role if events wait and nobody emits, and
    /// publishes a state change.
    mutating func conclude(_ effects: inout [ClientEffect]) {
        if let claim = claimEmission() { effects.append(.emit(claim.envelopes, finish: claim.finish)) }
        let snapshot = machine.snapshot
        guard snapshot != published else { return }
        published = snapshot
        publishedVersion &+= 1
        if !stateWaiters.isEmpty {
            effects.append(.publish(Array(stateWaiters.values)))
            stateWaiters = [:]
        }
    }
}

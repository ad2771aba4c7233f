extension ClientStateMachine {
    /// The answer to ``ClientStateMachine/openHookFinished(attempt:error:now:)``.
    package enum HandshakeAction: Sendable {
        /// The connection is ready: perform the effects (the `open` among them), then hand the
        /// messages held during the handshake to the consumer, after the `open`.
        case ready(Effects)
        /// The hook failed: perform the effects (the connection closes); the messages held
        /// during the handshake are dropped with the connection, which never opened.
        case failed(Effects)
        /// A stale report (see ``Ignored``).
        case ignored(Ignored)
    }

    /// The answer to ``ClientStateMachine/messagesArrived(attempt:count:bytes:)``.
    package enum ArrivalAction: Sendable, Hashable {
        /// Numbered from `first` on: put them in the consumer's buffer.
        case deliver(first: UInt64)
        /// The connection is in its handshake: the on-open hook gets them first, and what it
        /// does not take waits for the `open` (``HandshakeAction/ready(_:)``).
        case hold
        /// The attempt is over: drop them.
        case drop
    }

    /// The transport of attempt `a` opened: with an on-open hook, the connection enters its
    /// handshake (the hook runs; its `open` waits for it), else it is ready now.
    mutating func opened(_ a: inout Attempt, info: ConnectionInfo, now: Duration) -> Effects {
        guard let timeout = configuration.openHookTimeout else { return becameReady(&a, info: info, now: now) }
        a.stage = .handshaking(info, since: now)
        phase = .attempting(a)
        let log = ClientLogRecord(.debug, "transport open; on-open hook running", ["attempt": "\(a.number)"])
        return .log(log) + .openHook(attempt: a.number, info: info, cursor: a.cursor, deadline: now + timeout)
    }

    /// The connection of attempt `a` is ready: the `open` is emitted and the outbox goes out,
    /// before any message sent from now on.
    private mutating func becameReady(_ a: inout Attempt, info: ConnectionInfo, now: Duration) -> Effects {
        a.stage = .open(info, since: now)
        phase = .attempting(a)
        counters.sinceOpen = 0
        statistics.connections += 1
        let log = ClientLogRecord(.info, "connected", ["attempt": "\(a.number)", "status": info.status.map { "\($0)" } ?? ""])
        return .log(log) + emit(.open(info)) + startDrainIfNeeded()
    }

    /// The on-open hook of attempt `attempt` returned (`error` nil), threw or ran out of time
    /// (`error`: `openHookFailed`). Success makes the connection ready: its `open` is emitted,
    /// then the messages the hook did not take, then the outbox goes out. A failure ends the
    /// attempt with that error, which the reconnect policy judges like any other failure.
    package mutating func openHookFinished(attempt: Int, error: RealtimeError?, now: Duration) -> HandshakeAction {
        guard case .attempting(var a) = phase, a.number == attempt else { return .ignored(staleness(ofAttempt: attempt)) }
        guard case .handshaking(let info, _) = a.stage, a.hookFailure == nil else {
            preconditionFailure("attempt \(attempt)'s on-open hook finished, but none runs")
        }
        guard let error else {
            if a.ending != nil { return .failed(.nothing) }  // suspend, network loss: the transport is closing
            let log = ClientLogRecord(.debug, "on-open hook finished", ["attempt": "\(attempt)"])
            return .ready(.log(log) + becameReady(&a, info: info, now: now))
        }
        return .failed(handshakeFailed(&a, error))
    }

    /// The handshake of attempt `a` failed with `error`: the connection closes, and the
    /// attempt ends with that error (unless the client was already ending it for a reason
    /// of its own, which keeps precedence).
    private mutating func handshakeFailed(_ a: inout Attempt, _ error: RealtimeError) -> Effects {
        a.hookFailure = error
        phase = .attempting(a)
        guard a.ending == nil else { return .nothing }
        let m = ["attempt": "\(a.number)", "error": error.description]
        return .log(ClientLogRecord(.warning, "on-open hook failed: closing the connection", m)) + .transport(.close)
    }

    /// A terminator arrived while the on-open hook ran: the stream ended before the
    /// connection was ready, which fails the handshake.
    mutating func terminatorDuringHandshake(_ a: inout Attempt) -> Effects {
        handshakeFailed(&a, RealtimeError(.openHookFailed, detail: "the stream's terminator arrived during the on-open hook"))
    }

    /// The attempt ended: a hook still running is cancelled, and a hook's failure replaces
    /// what the transport reports (its close, which the client asked for).
    func openHookEnded(_ a: Attempt, _ end: TransportEnd) -> (TransportEnd, Effects) {
        let effects = Effects.flags(cancelWork: a.hookRunning && a.hookFailure == nil)
        guard let failure = a.hookFailure else { return (end, effects) }
        var end = end
        end.clean = false
        end.error = failure
        end.doNotReconnect = false
        return (end, effects)
    }
}

extension ClientStateMachine {
    /// The driver made attempt `attempt`'s transport: start it, or discard it when the client
    /// was closed, suspended, restarted or lost the network while the attempt was being
    /// prepared.
    package mutating func transportMade(attempt: Int, now: Duration) -> TransportMadeAction {
        if case .closed = phase { return .discard(.ignored(.clientDone)) }
        guard case .attempting(var a) = phase, a.number == attempt, case .preparing = a.stage else {
            preconditionFailure("a transport made for attempt \(attempt), which is not being prepared")
        }
        if a.ending != nil {
            return .discard(ended(a, TransportEnd(clean: false, error: .cancelled, requestWasDelivered: false), now: now))
        }
        a.stage = .started
        phase = .attempting(a)
        statistics.attempts += 1
        return .start(.nothing)
    }

    /// Preparing attempt `attempt` failed before any transport existed (the headers provider
    /// threw, the transport could not be made, `resumeURL` changed the scheme).
    package mutating func attemptFailedToStart(attempt: Int, error: RealtimeError, now: Duration) -> Effects {
        if case .closed = phase { return .ignored(.clientDone) }
        guard case .attempting(let a) = phase, a.number == attempt, case .preparing = a.stage else {
            preconditionFailure("attempt \(attempt) failed to start, but it is not being prepared")
        }
        return ended(a, TransportEnd(clean: false, error: error, requestWasDelivered: false), now: now)
    }

    /// The attempt in flight when it is `attempt`, else nil (its transport's event is stale:
    /// see ``staleness(ofAttempt:)``). A transport cannot report before it is started.
    private func startedAttempt(_ attempt: Int) -> Attempt? {
        guard case .attempting(let a) = phase, a.number == attempt else { return nil }
        precondition(!a.isPreparing, "attempt \(attempt)'s transport reported before it was started")
        return a
    }

    /// The transport of attempt `attempt` opened; `info` is what it negotiated.
    package mutating func transportOpened(attempt: Int, info: ConnectionInfo, now: Duration) -> Effects {
        guard var a = startedAttempt(attempt) else { return .ignored(staleness(ofAttempt: attempt)) }
        guard case .started = a.stage else { return .ignored(.outOfOrder) }
        var info = info
        info.attempt = attempt
        info.attemptInOutage = counters.sinceOpen
        credentials.refreshedInStreak = false
        networkBackoff.reset()
        sends.refusedAttempt = nil
        return opened(&a, info: info, now: now)
    }

    /// `count` messages (`bytes` of payload) of attempt `attempt` arrived, the last with the
    /// resume cursor `cursor` (given when the client has a resume plan): numbered for the
    /// consumer, held for the on-open hook (the connection is in its handshake), or dropped
    /// (the attempt is over).
    package mutating func messagesArrived(attempt: Int, count: Int, bytes: Int, cursor: String? = nil) -> ArrivalAction {
        guard attempt > 0, liveAttempt == attempt else { return .drop }
        statistics.messages += count
        statistics.bytes += bytes
        if let cursor { resumeProgress.received = cursor }
        if case .attempting(let a) = phase, a.hookRunning { return a.hookFailure == nil ? .hold : .drop }
        return .deliver(first: numberEmissions(count))
    }

    /// `count` messages held during attempt `attempt`'s handshake go to the consumer after
    /// its `open` (``HandshakeAction/ready(_:)``): returns the first one's sequence number.
    package mutating func heldMessagesReleased(attempt: Int, count: Int) -> UInt64 {
        precondition(liveAttempt == attempt && isConnected, "held messages released without a ready connection")
        return numberEmissions(count)
    }

    /// The server's reconnection time (SSE `retry:`, WHATWG HTML §9.2.6).
    package mutating func retryHint(attempt: Int, _ time: Duration) {
        guard attempt > 0, liveAttempt == attempt else { return }
        backoff.setServerReconnectionTime(time)
    }

    /// A message of attempt `attempt` matched the configured terminator: the reply is
    /// complete. It is not delivered; the connection closes now (the server may hold it
    /// open), the connection's `closed` is clean and final, and the events finish.
    package mutating func terminatorArrived(attempt: Int, now: Duration) -> Effects {
        guard var a = startedAttempt(attempt) else { return .ignored(staleness(ofAttempt: attempt)) }
        if a.hookRunning { return a.hookFailure == nil ? terminatorDuringHandshake(&a) : .nothing }
        guard a.opened else { return .ignored(.outOfOrder) }
        let close = CloseEvent(clean: true, willReconnect: false)
        let log = ClientLogRecord(.info, "end of stream: terminator received", ["attempt": "\(attempt)"])
        let effects = .log(log) + .transport(.close) + emit(.closed(close)) + .flags(finish: true, stopObservingNetwork: true)
        phase = .finished(nil)
        return effects + failQueuedSends()
    }

    /// The transport of attempt `attempt` ended.
    package mutating func transportEnded(attempt: Int, end: TransportEnd, now: Duration) -> Effects {
        guard let a = startedAttempt(attempt) else { return .ignored(staleness(ofAttempt: attempt)) }
        return ended(a, end, now: now)
    }

    /// An attempt is over: the client's own reasons first (suspend, network loss), else the
    /// reconnect policy decides.
    private mutating func ended(_ a: Attempt, _ end: TransportEnd, now: Duration) -> Effects {
        let (end, hookEffects) = openHookEnded(a, end)
        return hookEffects + concludeEnded(a, end, now: now)
    }

    private mutating func concludeEnded(_ a: Attempt, _ end: TransportEnd, now: Duration) -> Effects {
        var uptime = Duration.zero
        if case .open(_, let since) = a.stage { uptime = now - since }
        if a.ending == .suspend || a.ending == .restart || suspended {
            // Not a failure: no policy, no backoff.
            var effects = Effects.nothing
            if a.opened {
                effects += emit(.closed(CloseEvent(clean: true, code: end.code, reason: end.reason, willReconnect: true)))
            }
            phase = .waiting(interruptedWait(now: now))
            return effects + advance(now: now)
        }
        if a.ending == .networkLost || (configuration.monitorsNetwork && network.down) {
            return lostWithTheNetwork(a, end, now: now)
        }
        return decide(a, end, uptime: uptime, now: now)
    }

    /// The network went away under the attempt: not the server's fault, so no policy and no
    /// backoff; wait for the network, then connect at once.
    private mutating func lostWithTheNetwork(_ a: Attempt, _ end: TransportEnd, now: Duration) -> Effects {
        let lost = RealtimeError(.unreachable, detail: "the network went away")
        var end = end
        if end.error == nil || end.error?.code == .cancelled { end.error = lost }
        if let failure = end.error, failure.code != .streamEnded {
            statistics.errorsByClass[failure.failureClass, default: 0] += 1
        }
        statistics.networkWaits += 1
        network.announced = true
        var effects = Effects.log(ClientLogRecord(.notice, "connection lost with the network", ["attempt": "\(a.number)"]))
        effects += emit(.error(ErrorEvent(error: lost, willRetry: true, retryIn: nil, attempt: a.number)))
        if a.opened {
            effects += emit(.closed(CloseEvent(clean: end.clean, code: end.code, reason: end.reason, willReconnect: true)))
        }
        phase = .waiting(interruptedWait(now: now))
        return effects + advance(now: now)
    }
}

extension ClientStateMachine.Attempt {
    var isPreparing: Bool {
        if case .preparing = stage { return true }
        return false
    }
}

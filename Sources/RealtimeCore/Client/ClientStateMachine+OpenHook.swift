extension ClientStateMachine {
    /// A connection opened: when an on-open hook is configured, marks it running and returns
    /// the action that runs it. The outbox waits for it (``openAttempt`` is nil meanwhile), so
    /// what the hook sends goes out before any queued message.
    func openHookStart(_ a: inout Attempt, info: ConnectionInfo, now: Duration) -> Effects? {
        guard let timeout = configuration.openHookTimeout else { return nil }
        a.hookRunning = true
        return .openHook(attempt: a.number, info: info, deadline: now + timeout)
    }

    /// The on-open hook of attempt `attempt` returned (`error` nil), threw or ran out of time
    /// (`error`: `openHookFailed`). Success lets the outbox go out; a failure ends the attempt
    /// with that error, which the reconnect policy judges like any other failure.
    package mutating func openHookFinished(attempt: Int, error: RealtimeError?, now: Duration) -> Effects {
        guard case .attempting(var a) = phase, a.number == attempt else { return .ignored(staleness(ofAttempt: attempt)) }
        precondition(a.hookRunning, "attempt \(attempt)'s on-open hook finished, but none runs")
        a.hookRunning = false
        guard let error else {
            phase = .attempting(a)
            return Effects.log(ClientLogRecord(.debug, "on-open hook finished", ["attempt": "\(attempt)"])) + startDrainIfNeeded()
        }
        var effects = Effects.nothing
        if a.ending == nil {
            // The client's own reasons (suspend, network loss) keep precedence when they came first.
            a.hookFailure = error
            let m = ["attempt": "\(attempt)", "error": error.description]
            effects = .log(ClientLogRecord(.warning, "on-open hook failed: closing the connection", m)) + .transport(.close)
        }
        phase = .attempting(a)
        return effects
    }

    /// The attempt ended: a hook still running is cancelled, and a hook's failure replaces
    /// what the transport reports (its close, which the client asked for).
    func openHookEnded(_ a: Attempt, _ end: TransportEnd) -> (TransportEnd, Effects) {
        let effects = Effects.flags(cancelWork: a.hookRunning)
        guard let failure = a.hookFailure else { return (end, effects) }
        var end = end
        end.clean = false
        end.error = failure
        end.doNotReconnect = false
        return (end, effects)
    }
}

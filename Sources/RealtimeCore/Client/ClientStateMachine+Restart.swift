extension ClientStateMachine {
    /// The application asked for a fresh connection (new credentials, back in the
    /// foreground, a changed configuration): end the live attempt cleanly (its `closed` says
    /// a reconnect follows) and connect again at once, with the resume cursor. Not a failure:
    /// no policy, no error, and the backoff starts over. Between attempts it cuts the wait
    /// short. A no-op before the start, while suspended (``resume(now:)`` connects anyway)
    /// and once the client is done; the shared retry budget, when one is configured, still
    /// books the attempt.
    package mutating func restart(now: Duration) -> [Action] {
        guard !isTerminal, !suspended else { return [] }
        switch phase {
        case .attempting(var a):
            guard a.ending == nil else { return [] }
            a.ending = .restart
            let stage = a.stage
            phase = .attempting(a)
            backoff.reset()
            statistics.restarts += 1
            let log = ClientLogRecord(.info, "restart requested", ["attempt": "\(a.number)"])
            // An attempt still being prepared is discarded when its transport is made.
            if case .preparing = stage { return [.log(log)] }
            return [.log(log), .closeTransport]
        case .waiting(let w):
            backoff.reset()
            statistics.restarts += 1
            var actions: [Action] = [.log(ClientLogRecord(.info, "restart requested"))]
            if w.timer != nil { actions.append(.cancelTimer) }
            phase = .waiting(interruptedWait(now: now))
            return actions + advance(now: now)
        case .idle, .loadingCursor, .bookingRetrySlot, .finished, .closed:
            return []
        }
    }
}

extension ClientStateMachine {
    /// The application asked for a fresh connection (new credentials, back in the
    /// foreground, a changed configuration): end the live attempt cleanly (its `closed` says
    /// a reconnect follows) and connect again at once, with the resume cursor. Not a failure:
    /// no policy, no error, and the backoff starts over. Between attempts it cuts the wait
    /// short. A no-op before the start, while suspended (``resume(now:)`` connects anyway)
    /// and once the client is done; the shared retry budget, when one is configured, still
    /// books the attempt.
    package mutating func restart(now: Duration) -> Effects {
        guard !isTerminal, !suspended else { return .nothing }
        switch phase {
        case .attempting(var a):
            guard a.ending == nil else { return .nothing }
            a.ending = .restart
            let stage = a.stage
            phase = .attempting(a)
            backoff.reset()
            statistics.restarts += 1
            let log = ClientLogRecord(.info, "restart requested", ["attempt": "\(a.number)"])
            // An attempt still being prepared is discarded when its transport is made.
            if case .preparing = stage { return .log(log) }
            return .log(log) + .transport(.close)
        case .waiting(let w):
            backoff.reset()
            statistics.restarts += 1
            let effects = Effects.log(ClientLogRecord(.info, "restart requested")) + .flags(cancelTimer: w.timer != nil)
            phase = .waiting(interruptedWait(now: now))
            return effects + advance(now: now)
        case .bookingRetrySlot(var verdict):
            // The budget is booking the retry's slot: the wait it books is cut short when it
            // answers (``retrySlotReserved(_:now:)``).
            guard verdict.willRetry else { return .nothing }
            verdict.restartRequested = true
            phase = .bookingRetrySlot(verdict)
            return .nothing
        case .idle, .loadingCursor, .finished, .closed:
            return .nothing
        }
    }
}

extension WebSocketConnectionStateMachine {
    package enum TimerAction: Sendable, Hashable {
        case none
        /// Arm the same timer again for this deadline (timers are not moved on every read,
        /// which would cost a heap operation per read: they fire at the earliest possible
        /// deadline, re-check, and re-arm).
        case rearm(Instant)
        /// Write this heartbeat (a ping frame or the application's), then re-arm for `next`.
        case sendHeartbeat(OutboundMessage, next: Instant)
        /// The window for replies after a violation is over: fail the connection, as
        /// ``ClosingAction/fail(code:deadline:)`` says.
        case fail(code: UInt16, deadline: Instant)
        /// A refused handshake's excerpt ran out of time: build the error from what came.
        case finishErrorBody
        case end(Ending)
    }

    /// A timer fired. A timer that is not armed (cancelled, or already handled) is ignored.
    /// `outbound` is the byte stream's write counters at this moment (read by the `write`
    /// timer only).
    package mutating func timerFired(_ timer: Timer, now: Instant, outbound: OutboundProgress = OutboundProgress()) -> TimerAction {
        guard deadlines[timer] != nil else { return .none }
        deadlines[timer] = nil
        switch timer {
        case .connect: return connectTimerFired()
        case .heartbeat: return heartbeatTimerFired(now: now)
        case .idle: return idleTimerFired(now: now)
        case .close: return closeTimerFired(now: now)
        case .probe: return probeTimerFired(now: now)
        case .write: return writeTimerFired(outbound, now: now)
        }
    }

    private mutating func connectTimerFired() -> TimerAction {
        switch state {
        case .handshaking:
            let error = RealtimeError(.connectTimeout, detail: "no WebSocket handshake within \(configuration.connectTimeout.millisecondsDescription)")
            return .end(finish(TransportEnd(clean: false, error: error, requestWasDelivered: requestMayHaveBeenSent)))
        case .refused:
            return .finishErrorBody
        default:
            return .none
        }
    }

    private mutating func heartbeatTimerFired(now: Instant) -> TimerAction {
        guard case .open = state else { return .none }
        // We stopped reading on purpose: the pong may be waiting in the socket.
        if readsPausedForConsumer { heartbeat.messageReceived(now: now) }
        switch heartbeat.tick(now: now) {
        case .none:
            guard let next = heartbeat.nextDeadline else { return .none }
            return .rearm(arm(.heartbeat, at: next))
        case .sendPing(let ping):
            guard let next = heartbeat.nextDeadline else { return .none }
            return .sendHeartbeat(ping, next: arm(.heartbeat, at: next))
        case .declareDead(let error):
            // The peer is gone: a best-effort close frame, then drop the socket at once
            // (waiting for a dead peer's closing handshake would only delay the reconnect).
            return .end(finish(TransportEnd(clean: false, error: error), closeFrame: error.closeCode ?? WebSocketCloseCode.goingAway))
        }
    }

    private mutating func idleTimerFired(now: Instant) -> TimerAction {
        guard case .open = state, let idle = configuration.idleTimeout else { return .none }
        if readsPausedForConsumer { lastRead = now }
        let last = lastRead ?? now
        if last.duration(to: now) >= idle {
            return .end(finish(TransportEnd(clean: false, error: RealtimeError(.idleTimeout, detail: "no data for \(idle.millisecondsDescription)"))))
        }
        return .rearm(arm(.idle, at: last.advanced(by: idle)))
    }

    private mutating func closeTimerFired(now: Instant) -> TimerAction {
        switch state {
        case .replying(let end, let code):
            return .fail(code: code, deadline: startFailing(end, now: now))
        // The server did not finish the closing handshake in time: drop TCP ourselves (§7.1.1).
        case .closingAsInitiator(_, let end), .closingAsResponder(let end), .failing(let end):
            return .end(finish(end))
        default:
            return .none
        }
    }

    private mutating func probeTimerFired(now: Instant) -> TimerAction {
        guard case .open = state, let since = probeSince else { return .none }
        probeSince = nil
        guard !readsPausedForConsumer, let last = lastRead, last < since else { return .none }
        let error = RealtimeError(
            .idleTimeout, detail: "no answer within \(since.duration(to: now).millisecondsDescription) after the network path changed")
        return .end(finish(TransportEnd(clean: false, error: error), closeFrame: WebSocketCloseCode.goingAway))
    }

    package enum VerifyAction: Sendable, Hashable {
        case none
        /// Write a ping frame, and arm the `probe` timer for `deadline`: a byte must arrive
        /// before it.
        case sendPing(deadline: Instant)
    }

    /// The network path changed: ping, and expect a byte (the pong, or anything) within
    /// `timeout`. A socket bound to a vanished address never gets one.
    package mutating func verifyRequested(within timeout: Duration, now: Instant) -> VerifyAction {
        guard case .open = state else { return .none }
        probeSince = now
        return .sendPing(deadline: arm(.probe, at: now.advanced(by: timeout)))
    }

    /// The consumer's buffer filled and the driver stopped reading, or it drained and reading
    /// resumed. While paused, silence does not count against the peer; on resuming, the idle
    /// period and the heartbeat's silence start over from `now` (the consumer was slow, the
    /// server was not silent: what it sent meanwhile is still in the socket, unread).
    package mutating func readsPaused(_ paused: Bool, now: Instant) {
        if readsPausedForConsumer, !paused, case .open = state {
            lastRead = now
            heartbeat.messageReceived(now: now)
        }
        readsPausedForConsumer = paused
    }
}

#if os(Linux)
@_spi(Transport) import RealtimeCore

/// The attempt's timers: connect (up to the final response head), idle (no byte for too
/// long) and the path-change probe.
extension SSEAttemptStateMachine {
    package enum TimerAction: Sendable, Hashable {
        case none
        /// Arm the same timer again for this deadline.
        case rearm(Instant)
        case end(TransportEnd)
    }

    /// A timer fired at `now`. One that is not armed (disarmed by the final head, a later
    /// probe or the end) is ignored.
    package mutating func timerFired(_ timer: Timer, now: Instant) -> TimerAction {
        guard deadlines[timer] != nil, !isFinished else { return .none }
        deadlines[timer] = nil
        switch timer {
        case .connect: return connectTimerFired()
        case .idle: return idleTimerFired(now: now)
        case .probe: return probeTimerFired()
        }
    }

    /// DNS, connect, TLS, the request, redirects and 1xx took longer than the connect
    /// timeout, or the server did not answer within the response timeout.
    private mutating func connectTimerFired() -> TimerAction {
        let delivered = requestMayHaveBeenDelivered()
        let host = "\(hop.url.host ?? ""):\(hopPort)"
        let headTimeout = requestStarting ? configuration.responseTimeout ?? configuration.connectTimeout : configuration.connectTimeout
        let detail = delivered
            ? "no response head within \(headTimeout.millisecondsDescription)"
            : "connect to \(host)\(proxyEndpoint.map { " through the proxy \($0)" } ?? "") timed out"
        return .end(finish(TransportEnd(clean: false, error: RealtimeError(.connectTimeout, detail: detail), requestWasDelivered: delivered)))
    }

    /// Checks the time of the last byte and re-arms for the remainder, so streaming costs no
    /// timer churn.
    private mutating func idleTimerFired(now: Instant) -> TimerAction {
        if case .errorBody(let status, let retryAfter, let mediaType, let excerpt) = phase {
            // Its wait is over, stalled or trickling: the status with the excerpt so far.
            let error = Self.errorBodyError(status, retryAfter: retryAfter, mediaType: mediaType, excerpt: excerpt)
            return .end(finish(TransportEnd(clean: false, error: error)))
        }
        guard let limit = configuration.idleTimeout else { return .none }
        // A slow consumer is not a dead connection.
        if waitsForConsumer { return .rearm(arm(.idle, at: now.advanced(by: limit))) }
        let silent = (lastByte ?? now).duration(to: now)
        if silent >= limit {
            return .end(finish(TransportEnd(clean: false, error: RealtimeError(.idleTimeout, detail: "no byte for \(limit.millisecondsDescription)"))))
        }
        return .rearm(arm(.idle, at: now.advanced(by: limit - silent)))
    }

    private mutating func probeTimerFired() -> TimerAction {
        guard let probe = pendingProbe else { return .none }
        pendingProbe = nil
        guard !waitsForConsumer, let last = lastByte, last < probe.since else { return .none }
        return .end(finish(TransportEnd(clean: false, error: RealtimeError(
            .idleTimeout, detail: "no byte within \(probe.timeout.millisecondsDescription) after the network path changed"))))
    }

    package enum VerifyAction: Sendable, Hashable {
        case none
        /// Arm the `probe` timer for `deadline` (replacing an armed one): a byte must arrive
        /// before it.
        case armProbe(deadline: Instant)
    }

    /// The network path changed: a byte must arrive within `timeout`. Only the first byte
    /// after `now` matters, so one deadline suffices; once a byte has come the idle timeout
    /// is all that applies again. A later path change starts a new probe. Ignored unless the
    /// stream is open.
    package mutating func verifyRequested(within timeout: Duration, now: Instant) -> VerifyAction {
        guard case .open = phase else { return .none }
        pendingProbe = (now, timeout)
        return .armProbe(deadline: arm(.probe, at: now.advanced(by: timeout)))
    }
}
#endif

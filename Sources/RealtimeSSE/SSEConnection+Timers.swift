#if os(Linux)
import RealtimeCore
import RealtimeIO

/// The attempt's timers: connect (up to the final response head), idle (no byte for too
/// long) and the path-change probe. All run on the loop thread and end with ``finish(_:)``.
extension SSEConnection {
    // MARK: Connect timeout

    /// Bounds DNS, connect, TLS, the request, redirects and 1xx up to the final response head.
    func armConnectTimer() {
        connectTimer = loop.schedule(after: request.connectTimeout) { [self] in
            connectTimer = nil
            let delivered = requestMayHaveBeenDelivered()
            let host = "\(hop.url.host ?? ""):\(hopPort)"
            let detail = delivered
                ? "no response head within \(request.connectTimeout)"
                : "connect to \(host)\(proxyEndpoint.map { " through the proxy \($0)" } ?? "") timed out"
            finish(TransportEnd(clean: false, error: RealtimeError(.connectTimeout, detail: detail), requestWasDelivered: delivered))
        }
    }

    func cancelConnectTimer() {
        if let t = connectTimer { loop.cancel(t) }
        connectTimer = nil
    }

    func cancelTimers() {
        cancelConnectTimer()
        if let t = idleTimer { loop.cancel(t) }
        if let t = probeTimer { loop.cancel(t) }
        idleTimer = nil
        probeTimer = nil
    }

    // MARK: Idle timeout

    /// One timer per idle period rather than per chunk: when it fires it checks the time of
    /// the last byte and re-arms for the remainder, so streaming costs no timer churn.
    func armIdleTimer(after delay: Duration?) {
        guard let delay, request.idleTimeout != nil else { return }
        idleTimer = loop.schedule(after: delay) { [self] in
            idleTimer = nil
            checkIdle()
        }
    }

    private func checkIdle() {
        guard !isFinished, let limit = request.idleTimeout else { return }
        if waitsForConsumer {
            // A slow consumer is not a dead connection.
            armIdleTimer(after: limit)
            return
        }
        let silent = ContinuousClock.now - lastByte
        if silent >= limit {
            finish(TransportEnd(clean: false, error: RealtimeError(.idleTimeout, detail: "no byte for \(limit)")))
        } else {
            armIdleTimer(after: limit - silent)
        }
    }

    // MARK: Path-change probe

    /// The network path changed: a byte must arrive within `timeout`. Only the first byte
    /// after now matters, so one timer suffices; once a byte has come the normal idle
    /// timeout is all that applies again. A later path change starts a new probe.
    func verify(within timeout: Duration) {
        guard case .open = phase else { return }
        if let t = probeTimer { loop.cancel(t) }
        let since = ContinuousClock.now
        probeTimer = loop.schedule(after: timeout) { [self] in
            probeTimer = nil
            guard !isFinished, !waitsForConsumer, lastByte < since else { return }
            finish(TransportEnd(clean: false, error: RealtimeError(
                .idleTimeout, detail: "no byte within \(timeout) after the network path changed")))
        }
    }
}
#endif

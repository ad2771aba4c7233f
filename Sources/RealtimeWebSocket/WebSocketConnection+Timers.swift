import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    /// Starts the heartbeat and idle timers once the connection is open.
    func startTimers() {
        let now = clock.now
        lastRead = now
        if options.heartbeat.isEnabled {
            heartbeat.start(now: now)
            armHeartbeat()
        }
        if let idle = request.idleTimeout {
            armIdle(after: idle)
        }
    }

    // Timers are not moved on every read (that would cost a heap operation per read):
    // they fire at the earliest possible deadline, re-check, and re-arm.

    func armHeartbeat() {
        guard let deadline = heartbeat.nextDeadline else { return }
        let delay = max(deadline - clock.now, .zero)
        heartbeatTimer = eventLoop.schedule(after: delay) { [weak self] in
            self?.heartbeatFired()
        }
    }

    private func heartbeatFired() {
        heartbeatTimer = nil
        guard case .open = state else { return }
        let now = clock.now
        if readsPausedForConsumer {
            // We stopped reading on purpose: the pong may be waiting in the socket.
            heartbeat.messageReceived(now: now)
        }
        switch heartbeat.tick(now: now) {
        case .none:
            break
        case .sendPing(let ping):
            write(ping, completion: nil)
        case .declareDead(let error):
            // The peer is gone: a best-effort close frame, then drop the socket at once
            // (waiting for a dead peer's close handshake would only delay the reconnect).
            writeFrame(encoder.close(code: error.closeCode ?? 1001, reason: ""), completion: nil)
            end(TransportEnd(clean: false, code: error.closeCode, error: error))
            return
        }
        armHeartbeat()
    }

    /// The network path changed: ping, and expect a byte (the pong, or anything) within
    /// `timeout`. A socket bound to a vanished address never gets one.
    func verify(within timeout: Duration) {
        guard case .open = state else { return }
        if let t = probeTimer { eventLoop.cancel(t) }
        let since = clock.now
        write(.ping([]), completion: nil)
        probeTimer = eventLoop.schedule(after: timeout) { [weak self] in
            guard let self else { return }
            probeTimer = nil
            guard case .open = state, !readsPausedForConsumer, lastRead < since else { return }
            writeFrame(encoder.close(code: 1001, reason: ""), completion: nil)
            end(TransportEnd(clean: false, error: RealtimeError(
                .idleTimeout, detail: "no answer within \(timeout) after the network path changed")))
        }
    }

    func armIdle(after delay: Duration) {
        idleTimer = eventLoop.schedule(after: delay) { [weak self] in
            self?.idleFired()
        }
    }

    private func idleFired() {
        idleTimer = nil
        guard case .open = state, let idle = request.idleTimeout else { return }
        let now = clock.now
        if readsPausedForConsumer { lastRead = now }
        let silent = now - lastRead
        if silent >= idle {
            end(TransportEnd(clean: false, error: RealtimeError(.idleTimeout, detail: "no data for \(idle)")))
        } else {
            armIdle(after: idle - silent)
        }
    }
}

import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    /// `close()` from the application (any state).
    func close(code: UInt16, reason: String) {
        switch state {
        case .idle, .connecting, .readingErrorBody:
            end(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: false))
        case .open:
            // Start the closing handshake (RFC 6455 §7.1.2); the attempt ends when the server
            // has answered and closed TCP, or after `closeTimeout`.
            let wireCode = WebSocketCloseCode.isValidOnWire(code) ? code : 1000
            writeFrame(encoder.close(code: wireCode, reason: reason), completion: nil)
            pendingEnd = TransportEnd(clean: false, code: wireCode, reason: reason, error: .cancelled)
            enterClosing(receivedClose: false)
        case .closing, .closed:
            break
        }
    }

    /// `abort()` from the application: the path is gone, so no closing handshake — a
    /// best-effort close frame when open, then the attempt ends at once.
    func abort() {
        switch state {
        case .idle, .connecting, .readingErrorBody:
            end(TransportEnd(clean: false, error: .cancelled, requestWasDelivered: false))
        case .open:
            writeFrame(encoder.close(code: 1001, reason: ""), completion: nil)
            end(TransportEnd(clean: false, code: 1001, error: .cancelled))
        case .closing:
            end(pendingEnd ?? TransportEnd(clean: false, code: 1001, error: .cancelled))
        case .closed:
            break
        }
    }

    /// Fails the connection (RFC 6455 §7.1.7): sends a close frame with the error's close code,
    /// ignores further input, and ends with `error` when the server closes TCP (or after
    /// `closeTimeout`).
    func failConnection(_ error: RealtimeError) {
        switch state {
        case .open:
            let code = error.closeCode ?? 1002
            writeFrame(encoder.close(code: code, reason: ""), completion: nil)
            failing = true
            pendingEnd = TransportEnd(clean: false, code: code, error: error)
            enterClosing(receivedClose: false)
        case .closing:
            // Already sent our close frame: just stop listening and wait for TCP to end.
            failing = true
            if var end = pendingEnd, end.error == nil || end.error?.code == .cancelled {
                end.clean = false
                end.error = error
                pendingEnd = end
            }
        case .idle, .connecting, .readingErrorBody:
            end(TransportEnd(clean: false, error: error))
        case .closed:
            break
        }
    }

    /// Stops the heartbeat and idle timers, no longer accepts sends, and bounds the rest of
    /// the closing handshake by `closeTimeout`.
    func enterClosing(receivedClose: Bool) {
        state = .closing(receivedClose: receivedClose)
        for timer in [heartbeatTimer, idleTimer].compactMap({ $0 }) { eventLoop.cancel(timer) }
        heartbeatTimer = nil
        idleTimer = nil
        if let transport {
            let rejected = transport.outbox.withLock { $0.stopAccepting() }
            let error = RealtimeError(.notConnected, detail: "connection closing")
            for continuation in rejected { continuation.resume(throwing: error) }
        }
        // Reading must go on (the server's close frame, then EOF) even if the consumer is slow.
        if readsPausedForConsumer {
            readsPausedForConsumer = false
            if !stashedInput.isEmpty {
                let pending = stashedInput
                stashedInput = []
                pending.withUnsafeBytes { receiveFrames($0) }
            }
            stream?.resumeReading()
        }
        guard closeTimer == nil else { return }
        closeTimer = eventLoop.schedule(after: options.closeTimeout) { [weak self] in
            guard let self else { return }
            self.closeTimer = nil
            // The server did not finish the handshake in time: drop TCP ourselves (§7.1.1).
            var result = self.pendingEnd ?? TransportEnd(clean: false)
            if case .closing(receivedClose: false) = self.state {
                result.clean = false
            }
            self.end(result)
        }
    }
}

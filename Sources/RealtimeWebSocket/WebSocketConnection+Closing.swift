import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    /// `close()` from the application (any state).
    func close(code: UInt16, reason: String) {
        perform(machine.closeRequested(code: code, reason: reason, now: clock.now))
    }

    /// `abort()` from the application: the path is gone, so no closing handshake — a
    /// best-effort close frame when open, then the attempt ends at once.
    func abort() {
        if let ending = machine.abortRequested() { perform(ending) }
    }

    func perform(_ action: Machine.ClosingAction) {
        switch action {
        case .none:
            break
        case .end(let ending):
            perform(ending)
        case .startClosing(let code, let reason, let deadline):
            startClosing(code: code, reason: reason, deadline: deadline)
        }
    }

    /// Sends what `send` accepted, then the close frame (the last frame, RFC 6455 §5.5.1),
    /// stops the timers of an open connection and the outbound queue, and bounds the rest of
    /// the closing handshake by the close timer.
    private func startClosing(code: UInt16?, reason: String, deadline: ContinuousClock.Instant) {
        if let accepted = transport?.outbox.withLock({ $0.takeReady() }), !accepted.isEmpty {
            writeBatch(accepted)
        }
        writeFrame(encoder.close(code: code, reason: reason), completion: nil)
        cancel(.heartbeat)
        cancel(.idle)
        cancel(.probe)
        arm(.close, at: deadline)
        rejectSends(RealtimeError(.notConnected, detail: "connection closing"))
        // Reading must go on (the server's close frame, then EOF) even if the consumer is slow.
        if machine.readsPausedForConsumer {
            machine.readsPaused(false)
            if !stashedInput.isEmpty {
                let pending = stashedInput
                stashedInput = []
                pending.withUnsafeBytes { receiveFrames($0) }
            }
            stream?.resumeReading()
        }
    }
}

#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

extension WebSocketConnection {
    /// `close()` from the application (any state).
    func close(code: UInt16, reason: String) {
        perform(machine.closeRequested(code: code, reason: reason, now: loop.now))
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
        case .fail(let code, let deadline):
            fail(code: code, deadline: deadline)
        case .holdForReplies(let deadline):
            holdForReplies(until: deadline)
        }
    }

    /// The peer broke the protocol right after messages the application may answer: the
    /// socket is not read again and what was received and not decoded is dropped (§7.1.1);
    /// the messages decoded before the violation go to the consumer (the caller delivers
    /// them), and what it sends in answer is written until `deadline`, when the machine fails
    /// the connection and the close frame follows those answers.
    private func holdForReplies(until deadline: Loop.Instant) {
        stream?.pauseReading()
        stashedInput = []
        stopOpenConnectionTimers()
        arm(.close, at: deadline)
    }

    /// Sends what `send` accepted, then the close frame (the last frame, RFC 6455 §5.5.1),
    /// stops the timers of an open connection and the send queue, and bounds the rest of
    /// the closing handshake by the close timer.
    private func startClosing(code: UInt16?, reason: String, deadline: Loop.Instant) {
        stopOpenConnectionTimers()
        arm(.close, at: deadline)
        perform(sends.withLock { $0.closingStarted(.handshake) })
        writeClose(code: code, reason: reason)
        // Reading must go on (the server's close frame, then EOF) even if the consumer is slow.
        if machine.readsPausedForConsumer {
            machine.readsPaused(false, now: loop.now)
            if !stashedInput.isEmpty {
                let pending = stashedInput
                stashedInput = []
                pending.withUnsafeBytes { receiveFrames($0) }
            }
            stream?.resumeReading()
        }
    }

    /// Fails the connection (RFC 6455 §7.1.7): the socket is not read again and what was
    /// received and not decoded is dropped (§7.1.1: nothing more from the peer is
    /// processed, so a flooding peer costs nothing more); the close frame goes out (unless
    /// ours already did), and the machine ends the attempt once the kernel took it, or at
    /// `deadline`.
    private func fail(code: UInt16?, deadline: Loop.Instant) {
        stream?.pauseReading()
        stashedInput = []
        stopOpenConnectionTimers()
        arm(.close, at: deadline)
        perform(sends.withLock { $0.closingStarted(code == nil ? .failingAfterCloseFrame : .failing) })
        if let code { writeClose(code: code, reason: "") }
    }

    private func stopOpenConnectionTimers() {
        cancel(.heartbeat)
        cancel(.idle)
        cancel(.probe)
        cancel(.write)
    }

    /// Writes the close frame; the machine hears when the kernel took it. That report runs
    /// from a later loop iteration, never inside the write (it may end the attempt, which
    /// closes the stream that is running the completion).
    private func writeClose(code: UInt16?, reason: String) {
        let reference = self.reference
        let loop = self.loop
        writeFrame(encoder.close(code: code, reason: reason)) { _ in
            loop.execute {
                guard let connection = reference.value.connection else { return }
                connection.perform(connection.machine.closeFrameWritten())
            }
        }
    }
}
#endif

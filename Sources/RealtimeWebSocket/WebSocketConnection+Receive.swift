#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

extension WebSocketConnection {
    // MARK: - Receiving (RFC 6455 §5, §6.2)

    func receiveFrames(_ bytes: UnsafeRawBufferPointer) {
        let now = loop.now
        switch machine.bytesReceived(now: now) {
        case .discard: return // the connection failed: nothing more is processed
        case .decode: break
        }
        if !stashedInput.isEmpty {
            // Only possible when bytes were already in flight as reads paused; keep order.
            stashedInput.append(contentsOf: bytes)
            return
        }
        decodeFrames(bytes, now: now)
    }

    /// Runs the receive pipeline until the input is used up, the connection stops taking
    /// input, or the consumer's buffer is full, in which case the rest of the input waits in
    /// ``stashedInput`` (so at most one delivery batch beyond the channel's capacity is in
    /// hand). Messages go to the channel together when the input is used up.
    func decodeFrames(_ bytes: UnsafeRawBufferPointer, now: Loop.Instant) {
        var input = bytes
        // What the read makes us write (pongs, heartbeat answers) leaves in one system call.
        let stream = self.stream
        stream?.beginBatch()
        defer {
            stream?.endBatch()
            watchWrites()
            machine.readFinished()
            deliverPending()
        }
        do {
            while let output = try receiver.next(from: &input) {
                handle(output, now: now)
                if machine.discardsInput { return }
                if machine.readsPausedForConsumer {
                    if !input.isEmpty { stashedInput = Array(input) }
                    return
                }
            }
        } catch {
            perform(machine.protocolViolation(error, now: now))
        }
    }

    private func handle(_ output: WebSocketMessageAssembler.Output, now: Loop.Instant) {
        switch output {
        case .text, .string, .binary:
            guard let message = output.message else { return }
            switch machine.messageReceived(message, now: now) {
            case .deliver:
                pendingMessages.append(.message(message))
                if pendingMessages.count >= deliveryBatch { deliverPending() }
            case .consume:
                break
            case .reply(let answer):
                write(answer, completion: nil)
            }
        case .ping(let payload):
            switch machine.pingReceived(payload, now: now) {
            case .none: break
            case .sendPong(let payload): writePong(payload)
            case .end(let ending): perform(ending)
            }
        case .pong:
            machine.pongReceived(now: now)
        case .close(let code, let reason):
            perform(machine.closeReceived(code: code, reason: reason, now: now))
        }
    }

    /// Writes a pong and tells the machine when the kernel has taken it; then the pong owed
    /// for the latest ping of a stall, if any, follows.
    func writePong(_ payload: [UInt8]) {
        let reference = self.reference
        writeFrame(encoder.encode(opcode: .pong, payload: payload)) { _ in
            guard let connection = reference.value.connection else { return }
            connection.machine.pongWritten()
            if let owed = connection.machine.pongToSend() { connection.writePong(owed) }
        }
    }

    // MARK: - Back-pressure

    /// Hands the messages decoded so far to the channel (before anything else is sent on it,
    /// so order is kept); a full channel pauses reading (contract item 3) until the consumer
    /// drains it.
    func deliverPending() {
        guard !pendingMessages.isEmpty else { return }
        if !events.send(draining: &pendingMessages), !machine.readsPausedForConsumer, machine.isOpen {
            machine.readsPaused(true, now: loop.now)
            stream?.pauseReading()
        }
    }

    func consumerDemand() {
        guard machine.readsPausedForConsumer else { return }
        resumeDelivery()
    }

    /// Delivers what was held back while the consumer was full, then reads the socket again
    /// (unless the connection failed meanwhile: then it is never read again).
    func resumeDelivery() {
        let now = loop.now
        machine.readsPaused(false, now: now)
        guard !machine.discardsInput else { return }
        if !stashedInput.isEmpty {
            let pending = stashedInput
            stashedInput = []
            pending.withUnsafeBytes { decodeFrames($0, now: now) }
        }
        if !machine.readsPausedForConsumer, !machine.discardsInput {
            stream?.resumeReading()
        }
    }
}
#endif

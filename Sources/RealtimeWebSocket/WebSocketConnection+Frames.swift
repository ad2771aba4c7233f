import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    // MARK: - Receiving (RFC 6455 §5, §6.2)

    func receiveFrames(_ bytes: UnsafeRawBufferPointer) {
        let now = clock.now
        lastRead = now
        heartbeat.messageReceived(now: now)
        if failing { return } // failing the connection: input is discarded until the server closes
        if !stashedInput.isEmpty {
            // Only possible when bytes were already in flight as reads paused; keep order.
            stashedInput.append(contentsOf: bytes)
            return
        }
        decodeFrames(bytes)
    }

    /// Decodes and handles frames until the input is used up, the connection ends, or the
    /// consumer's buffer is full, in which case the rest of the input waits in
    /// ``stashedInput`` (so at most one delivery batch beyond the channel's capacity is in
    /// hand). Messages go to the channel together when the input is used up.
    private func decodeFrames(_ bytes: UnsafeRawBufferPointer) {
        var input = bytes
        defer { deliverPending() }
        do {
            while var frame = try decoder.next(from: &input) {
                if let inflater { frame = try inflater.process(frame) }
                guard let output = try assembler.receive(frame) else { continue }
                handle(output)
                if case .closed = state { return }
                if failing { return }
                if readsPausedForConsumer {
                    if !input.isEmpty { stashedInput = Array(input) }
                    return
                }
            }
            // Fail fast on a frame still arriving (oversize, bad UTF-8 so far, bad sequence).
            // (Not for a compressed message: its bytes mean nothing until inflated.)
            if let (header, _) = decoder.partialFrame, inflater?.isCompressed(header) != true {
                _ = try decoder.withPartialPayload { (header, payload) throws(RealtimeError) in
                    try self.assembler.inspectPartialFrame(header, payload: payload)
                }
            }
        } catch {
            failConnection(error)
        }
    }

    private func handle(_ output: WebSocketMessageAssembler.Output) {
        switch output {
        case .text, .binary:
            guard let message = output.message else { return }
            if case .closing(receivedClose: true) = state { return }
            if case .application = options.heartbeat.kind {
                switch heartbeat.inspect(message, now: clock.now) {
                case .deliver: break
                case .consume: return
                case .reply(let answer):
                    write(answer, completion: nil)
                    return
                }
            }
            pendingMessages.append(.message(message))
            if pendingMessages.count >= deliveryBatch { deliverPending() }
        case .ping(let payload):
            // No pong after our close frame (RFC 6455 §5.5.1: nothing follows a close).
            if case .open = state {
                writeFrame(encoder.encode(opcode: .pong, payload: payload), completion: nil)
            }
        case .pong:
            heartbeat.pongReceived(now: clock.now)
        case .close(let code, let reason):
            receivedClose(code: code, reason: reason)
        }
    }

    /// The server's close frame (RFC 6455 §7.1.5).
    private func receivedClose(code: UInt16?, reason: String) {
        switch state {
        case .open:
            // Echo the status code (§5.5.1), then wait for the server to close TCP (§7.1.1).
            writeFrame(encoder.close(code: code, reason: ""), completion: nil)
            // 1000 and 1001 (going away: a server shutting down or redeploying) are orderly
            // ends, not failures: the client reports a clean close and reconnects per its
            // clean-end policy. Any other code is the server closing on an error.
            let normal = code == nil || code == WebSocketCloseCode.normal || code == WebSocketCloseCode.goingAway
            pendingEnd = TransportEnd(
                clean: true, code: code, reason: reason,
                error: normal ? nil : RealtimeError(.remoteClosed, detail: "server closed the connection", closeCode: code))
            enterClosing(receivedClose: true)
        case .closing:
            // The answer to our close: the handshake is complete.
            if var end = pendingEnd, !failing {
                end.clean = true
                pendingEnd = end
            }
            state = .closing(receivedClose: true)
        default:
            break
        }
    }

    // MARK: - Sending

    /// Encodes one application message (or heartbeat) as a single frame and writes it.
    func write(_ message: OutboundMessage, completion: (@Sendable (RealtimeError?) -> Void)?) {
        var frame: [UInt8] = []
        switch message {
        case .text(let text):
            var text = text
            text.withUTF8 { writeData(opcode: .text, payload: UnsafeRawBufferPointer($0), into: &frame) }
        case .binary(let bytes):
            bytes.withUnsafeBytes { writeData(opcode: .binary, payload: $0, into: &frame) }
        case .ping(let payload):
            frame = encoder.encode(opcode: .ping, payload: payload.prefix(125))
        }
        writeFrame(frame, completion: completion)
    }

    /// One data frame: compressed with RSV1 set when permessage-deflate is on (RFC 7692 §6).
    private func writeData(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, into frame: inout [UInt8]) {
        if let deflater {
            do {
                let compressed = try deflater.compress(payload)
                encoder.encode(opcode: opcode, payload: compressed, rsv1: true, into: &frame)
                return
            } catch {
                // zlib failing to compress is a resource failure, not a reason to lose the
                // message: stop compressing (uncompressed messages are always allowed, §6)
                // and send it as it is.
                self.deflater = nil
            }
        }
        encoder.encode(opcode: opcode, payload: payload, into: &frame)
    }

    func writeFrame(_ frame: [UInt8], completion: (@Sendable (RealtimeError?) -> Void)?) {
        guard let stream else {
            completion?(RealtimeError(.notConnected, detail: "connection closed"))
            return
        }
        stream.write(frame, completion: completion)
    }

    /// Loop side of `send`: writes what the outbox admitted, in order.
    func drainOutbox() {
        guard let transport else { return }
        let batch = transport.outbox.withLock { $0.takeReady() }
        // Everything admitted since the last drain leaves in one system call.
        let stream = self.stream
        stream?.beginBatch()
        for (message, continuation) in batch {
            sendAdmitted(message, continuation)
        }
        stream?.endBatch()
    }

    func sendAdmitted(_ message: OutboundMessage, _ continuation: CheckedContinuation<Void, any Error>) {
        switch state {
        case .idle, .connecting:
            sendsBeforeOpen.append((message, continuation))
        case .open:
            write(message) { [weak self] error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
                self?.sendCompleted()
            }
        case .readingErrorBody, .closing, .closed:
            continuation.resume(throwing: RealtimeError(.notConnected, detail: "connection closed"))
            sendCompleted()
        }
    }

    /// One admitted message is done: room for waiting senders. The drain runs on a later
    /// loop iteration so a long queue never recurses through write completions.
    private func sendCompleted() {
        guard let transport else { return }
        if transport.outbox.withLock({ $0.completed() }) {
            eventLoop.execute { [weak self] in self?.drainOutbox() }
        }
    }

    // MARK: - Back-pressure

    /// Hands the messages decoded so far to the channel (before anything else is sent on it,
    /// so order is kept); a full channel pauses reading (contract item 3) until the consumer
    /// drains it.
    func deliverPending() {
        guard !pendingMessages.isEmpty else { return }
        if !events.send(draining: &pendingMessages), !readsPausedForConsumer, case .open = state {
            readsPausedForConsumer = true
            stream?.pauseReading()
        }
    }

    func consumerDemand() {
        guard readsPausedForConsumer else { return }
        resumeDelivery()
    }

    /// Delivers what was held back while the consumer was full, then reads the socket again.
    func resumeDelivery() {
        readsPausedForConsumer = false
        if !stashedInput.isEmpty {
            let pending = stashedInput
            stashedInput = []
            pending.withUnsafeBytes { decodeFrames($0) }
        }
        if !readsPausedForConsumer {
            stream?.resumeReading()
        }
    }
}

import RealtimeCore
import RealtimeIO

extension WebSocketConnection {
    // MARK: - Sending

    /// Encodes one application message (or heartbeat) as a single frame and writes it.
    func write(_ message: OutboundMessage, completion: Completion?) {
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

    func writeFrame(_ frame: [UInt8], completion: Completion?) {
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
        switch machine.sendAdmitted() {
        case .hold:
            sendsBeforeOpen.append((message, continuation))
        case .write:
            let reference = self.reference
            write(message) { error in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
                reference.value.connection?.sendCompleted(message)
            }
        case .reject(let error):
            continuation.resume(throwing: error)
            sendCompleted(message)
        }
    }

    /// One admitted message is done: room for waiting senders. The drain runs on a later
    /// loop iteration so a long queue never recurses through write completions.
    private func sendCompleted(_ message: OutboundMessage) {
        guard let transport else { return }
        if transport.outbox.withLock({ $0.completed(message) }) {
            let reference = self.reference
            eventLoop.execute { reference.value.connection?.drainOutbox() }
        }
    }
}

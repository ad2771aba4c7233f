#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

extension WebSocketConnection {
    typealias SendEntry = SendMachine.Entry
    typealias SendResolution = SendMachine.Resolution

    // MARK: - Sending

    /// Encodes one application message (or heartbeat) as a single frame and writes it.
    func write(_ message: OutboundMessage, completion: Completion?) {
        var frame: [UInt8] = []
        encode(message, into: &frame)
        writeFrame(frame, completion: completion)
    }

    /// Appends `message` as one frame.
    private func encode(_ message: OutboundMessage, into frame: inout [UInt8]) {
        switch message {
        case .text(let text):
            var text = text
            text.withUTF8 { encodeData(opcode: .text, payload: UnsafeRawBufferPointer($0), into: &frame) }
        case .binary(let bytes):
            bytes.withUnsafeBytes { encodeData(opcode: .binary, payload: $0, into: &frame) }
        case .ping(let payload):
            encoder.encode(opcode: .ping, payload: payload.prefix(125), into: &frame)
        }
    }

    /// One data frame: compressed with RSV1 set when permessage-deflate is on (RFC 7692 §6).
    private func encodeData(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, into frame: inout [UInt8]) {
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
        watchWrites()
    }

    /// Tells the machine what the stream holds for the kernel after a write: bytes left
    /// waiting start the write-progress watch (``WebSocketOptions/writeTimeout``).
    /// Inside a batch the bytes are not handed over yet; the batch's end looks again.
    func watchWrites() {
        guard let stream, !machine.isClosed else { return }
        switch machine.bytesWritten(outboundProgress(stream), now: loop.now) {
        case .none: break
        case .watch(let deadline): arm(.write, at: deadline)
        }
    }

    func outboundProgress(_ stream: Stream) -> Machine.OutboundProgress {
        Machine.OutboundProgress(pendingBytes: stream.pendingWriteBytes, bytesWritten: stream.bytesWrittenToKernel)
    }

    /// Loop side of `send`: writes what the send queue accepted since the last drain.
    func drainSends() {
        let batch = sends.withLock { $0.takeWritable() }
        if !batch.isEmpty { writeBatch(batch) }
    }

    /// Encodes the batch into one buffer and writes it with one call, so the stream hands it
    /// to the kernel in one system call (one `SSL_write` under TLS). One completion covers
    /// the batch: it resumes the flush senders and frees the room in the send queue.
    func writeBatch(_ batch: [SendEntry]) {
        var frames = batchBuffer
        batchBuffer = []
        frames.removeAll(keepingCapacity: true)
        var bytes = 0
        var flushWaiters: [Sender] = []
        for entry in batch {
            encode(entry.message, into: &frames)
            bytes += entry.size
            if let waiter = entry.waiter { flushWaiters.append(waiter) }
        }
        let count = batch.count
        let reference = self.reference
        writeFrame(frames) { [bytes, flushWaiters] error in
            for waiter in flushWaiters {
                if let error { waiter.resume(throwing: error) } else { waiter.resume() }
            }
            reference.value.connection?.sendsCompleted(count: count, bytes: bytes)
        }
        // The stream copied what the kernel did not take: the buffer is ours again. Only a
        // small one is kept, so a connection that sent a burst and went quiet holds no buffer
        // sized for it.
        if frames.capacity <= 4 << 10 { batchBuffer = frames }
    }

    /// Written (or failed) messages free their room: senders waiting for it are accepted.
    /// The drain runs on a later loop iteration so a long queue never recurses through write
    /// completions.
    private func sendsCompleted(count: Int, bytes: Int) {
        let admission = sends.withLock { $0.completed(count: count, bytes: bytes) }
        for waiter in admission.resume { waiter.resume() }
        if admission.drain {
            let reference = self.reference
            loop.execute { reference.value.connection?.drainSends() }
        }
    }

    /// Carries out what a change of the send queue's phase resolved: the accepted messages it
    /// hands out are written (before anything the caller writes next, e.g. the close frame),
    /// the senders it gives up on fail.
    func perform(_ resolution: SendResolution) {
        if !resolution.write.isEmpty { writeBatch(resolution.write) }
        for waiter in resolution.fail { waiter.resume(throwing: resolution.error) }
    }
}
#endif

#if os(Linux)
import CLinux
import Glibc
@_spi(Transport) import RealtimeCore

extension SocketByteStream {
    // MARK: Writing

    package func write(_ bytes: [UInt8], completion: (@Sendable (RealtimeError?) -> Void)?) {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        switch phase {
        case .closed:
            completion?(RealtimeError(.notConnected, detail: "stream closed"))
        case .idle, .resolving, .connecting, .tunnelling, .handshaking:
            preconditionFailure("SocketByteStream.write before the stream connected")
        case .open:
            if batchDepth > 0 {
                if tls != nil {
                    batchPlaintext.append(contentsOf: bytes)
                    if let completion { batchCompletions.append(completion) }
                } else {
                    outbound.enqueue(bytes, completion: completion)
                }
                return
            }
            enqueue(bytes, completion: completion)
            flush()
        }
    }

    package func beginBatch() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        batchDepth += 1
    }

    package func endBatch() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        precondition(batchDepth > 0, "SocketByteStream.endBatch without beginBatch")
        batchDepth -= 1
        guard batchDepth == 0, phase == .open else { return }
        if !batchPlaintext.isEmpty || !batchCompletions.isEmpty {
            let plaintext = batchPlaintext
            let waiting = batchCompletions
            batchPlaintext = []
            batchCompletions = []
            // One SSL_write for the whole batch: full-size records instead of one per message.
            enqueue(plaintext, completion: nil)
            guard phase == .open else {
                let error = RealtimeError(.notConnected, detail: "stream closed")
                for callback in waiting { callback(error) }
                return
            }
            for callback in waiting { outbound.addCompletion(callback) }
        }
        flush()
    }

    /// Queues one write: encrypted at once under TLS; otherwise, when nothing is pending,
    /// tried on the kernel straight from the caller's array (only the rest is copied).
    func enqueue(_ bytes: [UInt8], completion: Completion?) {
        if let tls {
            let failure = bytes.withUnsafeBytes { raw -> RealtimeError? in
                do {
                    try tls.write(raw)
                    return nil
                } catch let e as RealtimeError {
                    return e
                } catch {
                    return RealtimeError(.tls, detail: "TLS write failed")
                }
            }
            if let failure {
                completion?(failure)
                fail(failure)
                return
            }
            outbound.appendProduced { tls.drainCiphertext(into: &$0) }
            if let completion { outbound.addCompletion(completion) }
        } else if outbound.isEmpty {
            switch bytes.withUnsafeBytes({ sendSome($0) }) {
            case .sent(let n):
                outbound.enqueue(bytes, alreadyWritten: n, completion: completion)
            case .failed(let error):
                completion?(RealtimeError(.notConnected, detail: "stream closed"))
                fail(error)
            }
        } else {
            outbound.enqueue(bytes, completion: completion)
        }
    }

    enum SendResult {
        /// The kernel took this many bytes (fewer than offered: its buffer is full).
        case sent(Int)
        case failed(RealtimeError)
    }

    /// Writes as much as the kernel takes. Touches no state, so a failure is handled by the
    /// caller after it let go of the bytes.
    private func sendSome(_ raw: UnsafeRawBufferPointer) -> SendResult {
        var offset = 0
        while offset < raw.count {
            let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            if n > 0 {
                offset += n
                continue
            }
            let err = rt_errno()
            if n < 0 && err == EINTR { continue }
            if n < 0 && (err == EAGAIN || err == EWOULDBLOCK) { break }
            if phase == .handshaking { return .failed(TLSFailureEvidence(socketError: err).error) }
            return .failed(RealtimeError(.network, detail: "write: \(Self.errnoString(err))"))
        }
        return .sent(offset)
    }

    func flushCiphertext() {
        guard let tls else { return }
        outbound.appendProduced { tls.drainCiphertext(into: &$0) }
        flush()
    }

    /// Hands the kernel what it takes, then runs the completions of the writes it covered.
    func flush() {
        guard fd >= 0, phase == .open || phase == .handshaking || phase == .tunnelling else { return }
        while !outbound.isEmpty {
            let offered = min(outbound.pendingBytes, outbound.maxWriteSize)
            let result = outbound.withNextWrite { sendSome($0) }
            guard case .sent(let n) = result else {
                if case .failed(let error) = result { fail(error) }
                return
            }
            outbound.didWrite(n)
            if n < offered { break } // the kernel's buffer is full: wait for writability
        }
        updateInterest()
        for callback in outbound.takeDueCompletions() { callback(nil) }
    }
}
#endif

#if os(Linux)
import CLinux
import Dispatch
import Glibc
@_spi(Transport) import RealtimeCore

/// The Linux `ByteStream`: a non-blocking TCP socket on an ``EventLoop`` (epoll), with
/// optional TLS through `TLSSession` (OpenSSL over memory BIOs).
///
/// DNS runs on a short-lived thread of its own (`getaddrinfo` blocks), everything else on the
/// loop thread.
/// Addresses are tried in resolver order until one connects; the connect timeout covers
/// DNS, every TCP attempt, the proxy's `CONNECT` exchange and the TLS handshake. With
/// `ByteStreamEndpoint/proxy` the socket goes to the proxy, which is asked to open a tunnel
/// to the endpoint (`HTTPProxy`); TLS then runs through the tunnel against the endpoint.
/// Writes use `MSG_NOSIGNAL`, so a vanished peer yields an error, never SIGPIPE.
///
/// The jobs live in their own types: `AddressConnector` (address iteration),
/// `ProxyTunnel` (the `CONNECT` exchange), `OutboundBuffer` (pending writes and their
/// completions); this class sequences them on the loop (`+Connect`, `+Write`).
///
/// Thread-safety: created anywhere, then used only on `eventLoop`'s thread, which every
/// public method checks with a precondition; this is why the class is `@unchecked Sendable`.
package final class SocketByteStream: ByteStream, @unchecked Sendable {
    package let eventLoop: EventLoop
    package weak var delegate: (any ByteStreamDelegate)?

    enum Phase {
        case idle, resolving, connecting, tunnelling, handshaking, open, closed
    }

    typealias Completion = @Sendable (RealtimeError?) -> Void

    var phase = Phase.idle
    var endpoint: ByteStreamEndpoint?
    var fd: Int32 = -1
    var registration: IORegistration?
    var interest: IOInterest = []
    /// Tries the resolved addresses while ``Phase/connecting``.
    var connector: AddressConnector?
    var connectTimer: TimerHandle?
    var tls: TLSSession?
    /// The `CONNECT` exchange while ``Phase/tunnelling``.
    var tunnel: ProxyTunnel?
    /// The stream's place in its address's line while it opens (``ByteStreamEndpoint/pendingLimit``).
    var pendingTicket: PendingConnectionGate.Ticket?

    /// Bytes for the kernel (ciphertext under TLS) and the completions of their writes.
    var outbound = OutboundBuffer()

    /// Nesting depth of ``beginBatch()``; writes only queue while it is positive.
    var batchDepth = 0
    /// TLS only: plaintext written during a batch, encrypted at its end.
    var batchPlaintext: [UInt8] = []
    var batchCompletions: [Completion] = []

    // Inbound.
    var readPaused = false
    /// Set when the socket reported error/hang-up while reads were paused: the descriptor is
    /// unwatched (level-triggered epoll would spin) until reads resume.
    var parkedWhilePaused = false
    /// Bytes per `read(2)`, into the loop's shared receive buffer
    /// (``EventLoop/withReadBuffer(minimum:_:)``): a quiet stream holds no receive buffer.
    let readChunkSize: Int

    package init(eventLoop: EventLoop = .shared, readChunkSize: Int = 64 * 1024) {
        self.eventLoop = eventLoop
        self.readChunkSize = max(readChunkSize, 1024)
    }

    deinit {
        // Normally `close()` released everything. A stream dropped while it opened gives up
        // its place in the line, on the loop.
        if let ticket = pendingTicket {
            let loop = eventLoop
            if loop.inEventLoop { loop.pendingConnections.leave(ticket) } else { loop.execute { loop.pendingConnections.leave(ticket) } }
        }
        // If the owner dropped an open stream, the descriptor must leave epoll before it is
        // closed (a reused descriptor number must never inherit this registration), and only
        // the loop thread may deregister.
        guard fd >= 0 else { return }
        let registration = self.registration
        let loop = eventLoop
        if loop.inEventLoop {
            if let registration { loop.deregister(registration) }
            Glibc.close(fd)
        } else {
            // A loop that has stopped drops the task unrun: the descriptor is then closed
            // when the task is released (the loop's epoll is gone, or goes with it).
            let descriptor = OwnedDescriptor(fd)
            loop.execute {
                if let registration { loop.deregister(registration) }
                descriptor.close()
            }
        }
    }

    package var pendingWriteBytes: Int { outbound.pendingBytes }

    /// Every byte the kernel has taken from this stream (ciphertext under TLS): a counter
    /// that only grows, so an owner can tell whether a peer still reads.
    package var bytesWrittenToKernel: UInt64 { outbound.bytesWritten }

    // MARK: Readiness

    func handle(_ ready: IOInterest) {
        switch phase {
        case .connecting:
            guard ready.contains(.writable) || ready.contains(.error) || ready.contains(.hangup) else { return }
            connectSignalled(reportedError: ready.contains(.error))
        case .tunnelling, .handshaking, .open:
            if readPaused && (ready.contains(.error) || ready.contains(.hangup)) && !ready.contains(.writable) {
                park()
                return
            }
            if ready.contains(.writable) { flush() }
            guard phase == .tunnelling || phase == .handshaking || phase == .open else { return }
            if ready.contains(.readable) || ((ready.contains(.error) || ready.contains(.hangup)) && !readPaused) {
                readSocket()
            }
        case .idle, .resolving, .closed:
            break
        }
    }

    func readSocket() {
        eventLoop.withReadBuffer(minimum: readChunkSize) { readSocket(into: $0) }
    }

    private func readSocket(into readBuffer: UnsafeMutableRawBufferPointer) {
        // A few reads per wake-up keep one busy connection from starving the others.
        for _ in 0..<4 {
            guard phase == .tunnelling || phase == .handshaking || phase == .open, !readPaused || phase != .open else { return }
            let n = Glibc.read(fd, readBuffer.baseAddress, readBuffer.count)
            if n > 0 {
                let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<n])
                if phase == .tunnelling {
                    receiveTunnelAnswer(bytes)
                } else if let tls {
                    tls.receive(bytes)
                    if phase == .handshaking { advanceHandshake(readBuffer: readBuffer) } else { drainTLS(into: readBuffer) }
                } else {
                    delegate?.byteStream(self, didRead: bytes)
                }
                if n < readBuffer.count { return }
            } else if n == 0 {
                if phase == .tunnelling {
                    fail(ProxyTunnel.closedBeforeAnswer)
                } else if phase == .handshaking {
                    fail(TLSFailureEvidence(peerClosed: true).error)
                } else {
                    finish(nil)
                }
                return
            } else {
                let err = rt_errno()
                if err == EAGAIN || err == EWOULDBLOCK { return }
                if err == EINTR { continue }
                // During the handshake a reset is classified with the TLS failures (network, retried).
                fail(phase == .handshaking
                    ? TLSFailureEvidence(socketError: err).error
                    : RealtimeError(.network, detail: "read: \(Self.errnoString(err))"))
                return
            }
        }
    }

    /// Delivers the plaintext OpenSSL holds, until it needs more ciphertext or reads pause.
    func drainTLS() {
        guard tls != nil else { return }
        eventLoop.withReadBuffer(minimum: readChunkSize) { drainTLS(into: $0) }
    }

    func drainTLS(into readBuffer: UnsafeMutableRawBufferPointer) {
        guard let tls else { return }
        while phase == .open && !readPaused {
            let result: TLSSession.ReadResult
            do {
                result = try tls.read(into: readBuffer)
            } catch {
                fail(error)
                return
            }
            switch result {
            case .bytes(let n):
                delegate?.byteStream(self, didRead: UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
            case .needMore:
                flushCiphertext() // post-handshake messages may want an answer
                return
            case .closed:
                finish(nil)
                return
            }
        }
    }

    // MARK: Back-pressure

    package func pauseReading() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        guard !readPaused else { return }
        readPaused = true
        updateInterest()
    }

    package func resumeReading() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        guard readPaused else { return }
        readPaused = false
        if parkedWhilePaused, phase == .open || phase == .handshaking {
            parkedWhilePaused = false
            interest = []
            registration = eventLoop.register(fd: fd, interest: []) { [weak self] ready in
                self?.handle(ready)
            }
        }
        updateInterest()
        // Plaintext already decrypted by OpenSSL would not wake epoll: deliver it from a
        // later loop iteration (never re-enter the delegate that just resumed us).
        if tls != nil {
            eventLoop.execute { [weak self] in
                guard let self else { return }
                self.drainTLS()
            }
        }
    }

    private func park() {
        if let r = registration { eventLoop.deregister(r) }
        registration = nil
        parkedWhilePaused = true
    }

    func updateInterest() {
        guard let registration, phase != .closed else { return }
        var wanted: IOInterest = []
        switch phase {
        case .connecting:
            wanted = .writable
        case .tunnelling, .handshaking:
            wanted.insert(.readable)
            if !outbound.isEmpty { wanted.insert(.writable) }
        case .open:
            if !readPaused { wanted.insert(.readable) }
            if !outbound.isEmpty { wanted.insert(.writable) }
        default:
            break
        }
        if wanted != interest {
            interest = wanted
            eventLoop.modify(registration, interest: wanted)
        }
    }

    // MARK: Ending

    package func close() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        guard phase != .closed else { return }
        if phase == .open {
            if let tls {
                if !batchPlaintext.isEmpty { batchPlaintext.withUnsafeBytes { try? tls.write($0) } }
                tls.shutdown()
                outbound.appendProduced { tls.drainCiphertext(into: &$0) }
            }
            if !outbound.isEmpty, fd >= 0 {
                // One best-effort attempt to deliver what is pending (a last close frame, TLS
                // close_notify); never block.
                let fd = self.fd
                _ = outbound.withNextWrite { raw in send(fd, raw.baseAddress!, raw.count, Int32(MSG_NOSIGNAL)) }
            }
        }
        tearDown(RealtimeError(.notConnected, detail: "stream closed"))
    }

    /// The peer ended the stream (EOF); a close without error.
    func finish(_ error: RealtimeError?) {
        guard phase != .closed else { return }
        let delegate = self.delegate
        tearDown(RealtimeError(.notConnected, detail: "connection closed by peer"))
        delegate?.byteStream(self, didCloseWith: error)
    }

    func fail(_ error: RealtimeError) {
        guard phase != .closed else { return }
        let delegate = self.delegate
        tearDown(error)
        delegate?.byteStream(self, didCloseWith: error)
    }

    private func tearDown(_ pendingError: RealtimeError) {
        phase = .closed
        leavePendingLine()
        cancelConnectTimer()
        releaseSocket()
        tls = nil
        tunnel = nil
        connector = nil
        let waiting = outbound.removeAll() + batchCompletions
        batchCompletions = []
        batchPlaintext = []
        for callback in waiting { callback(pendingError) }
    }

    func releaseSocket() {
        if let r = registration { eventLoop.deregister(r) }
        registration = nil
        interest = []
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    static func errnoString(_ err: Int32) -> String {
        AddressConnector.errnoString(err)
    }
}

#endif

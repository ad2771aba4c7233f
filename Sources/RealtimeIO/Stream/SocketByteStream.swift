#if os(Linux)
import CLinux
import Dispatch
import Glibc
import RealtimeCore

/// The Linux ``ByteStream``: a non-blocking TCP socket on an ``EventLoop`` (epoll), with
/// optional TLS through ``TLSSession`` (OpenSSL over memory BIOs).
///
/// DNS runs on a short-lived thread of its own (`getaddrinfo` blocks), everything else on the
/// loop thread.
/// Addresses are tried in resolver order until one connects; the connect timeout covers
/// DNS, every TCP attempt, the proxy's `CONNECT` exchange and the TLS handshake. With
/// ``ByteStreamEndpoint/proxy`` the socket goes to the proxy, which is asked to open a tunnel
/// to the endpoint (``HTTPProxy``); TLS then runs through the tunnel against the endpoint.
/// Writes use `MSG_NOSIGNAL`, so a vanished peer yields an error, never SIGPIPE.
///
/// Thread-safety: created anywhere, then used only on `eventLoop`'s thread (checked with
/// preconditions); this is why the class is `@unchecked Sendable`.
public final class SocketByteStream: ByteStream, @unchecked Sendable {
    public let eventLoop: EventLoop
    public weak var delegate: (any ByteStreamDelegate)?

    enum Phase {
        case idle, resolving, connecting, tunnelling, handshaking, open, closed
    }

    private(set) var phase = Phase.idle
    private var endpoint: ByteStreamEndpoint?
    private var fd: Int32 = -1
    private var registration: IORegistration?
    private var interest: IOInterest = []
    private var addresses: [ResolvedAddress] = []
    private var nextAddress = 0
    private var lastConnectError = ""
    private var connectTimer: TimerHandle?
    private var tls: TLSSession?
    /// Reads the proxy's answer to `CONNECT` while ``Phase/tunnelling``.
    private var tunnelHead: HTTPResponseHeadParser?

    // Outbound: bytes for the kernel (ciphertext under TLS) and completions keyed by the
    // running byte count they wait for.
    private var outBuffer: [UInt8] = []
    private var outOffset = 0
    private var bytesQueued: UInt64 = 0
    private var bytesSent: UInt64 = 0
    private var completions: [(threshold: UInt64, callback: @Sendable (RealtimeError?) -> Void)] = []
    private var completionHead = 0
    /// Writes accepted before the connection (and TLS) was up, sent once it is.
    private var earlyWrites: [([UInt8], (@Sendable (RealtimeError?) -> Void)?)] = []
    private var earlyBytes = 0

    /// Nesting depth of ``beginBatch()``; writes only queue while it is positive.
    private var batchDepth = 0
    /// TLS only: plaintext written during a batch, encrypted at its end.
    private var batchPlaintext: [UInt8] = []
    private var batchCompletions: [@Sendable (RealtimeError?) -> Void] = []

    // Inbound.
    private var readPaused = false
    /// Set when the socket reported error/hang-up while reads were paused: the descriptor is
    /// unwatched (level-triggered epoll would spin) until reads resume.
    private var parkedWhilePaused = false
    private var readBuffer: UnsafeMutableRawBufferPointer

    public init(eventLoop: EventLoop = .shared, readChunkSize: Int = 64 * 1024) {
        self.eventLoop = eventLoop
        self.readBuffer = .allocate(byteCount: max(readChunkSize, 1024), alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        // Normally `close()` released everything. If the owner dropped an open stream, the
        // descriptor must leave epoll before it is closed (a reused descriptor number must
        // never inherit this registration), and only the loop thread may deregister.
        guard fd >= 0 else { return }
        let fd = self.fd
        let registration = self.registration
        let loop = eventLoop
        if loop.inEventLoop {
            if let registration { loop.deregister(registration) }
            Glibc.close(fd)
        } else {
            loop.execute {
                if let registration { loop.deregister(registration) }
                Glibc.close(fd)
            }
        }
    }

    public var pendingWriteBytes: Int { (outBuffer.count - outOffset) + earlyBytes }

    // MARK: Connect

    public func connect(to endpoint: ByteStreamEndpoint) {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        precondition(phase == .idle, "SocketByteStream.connect called twice")
        self.endpoint = endpoint
        phase = .resolving
        if let timeout = endpoint.options.connectTimeout {
            connectTimer = eventLoop.schedule(after: timeout) { [weak self] in
                guard let self, self.phase != .open, self.phase != .closed else { return }
                self.connectTimer = nil
                let via = endpoint.proxy.map { " through the proxy \($0.host):\($0.port)" } ?? ""
                self.fail(RealtimeError(.connectTimeout, detail: "connect to \(endpoint.host):\(endpoint.port)\(via) timed out"))
            }
        }
        let loop = eventLoop
        // Through a proxy only the proxy's name is resolved here; it resolves the endpoint.
        let (host, port) = endpoint.proxy.map { ($0.host, $0.port) } ?? (endpoint.host, endpoint.port)
        // getaddrinfo blocks: on a thread of its own, never on the shared Dispatch pool.
        DetachedThread.run { [weak self] in
            let result = ResolvedAddress.resolve(host: host, port: port)
            loop.execute { [weak self] in
                self?.resolved(result)
            }
        }
    }

    private func resolved(_ result: Result<[ResolvedAddress], ResolvedAddress.DNSError>) {
        guard phase == .resolving, let endpoint else { return }
        switch result {
        case .failure(let e):
            let what = endpoint.proxy.map { "the proxy \($0.host)" } ?? endpoint.host
            fail(RealtimeError(.dnsFailure, detail: "cannot resolve \(what): \(e.message)"))
        case .success(let list):
            addresses = list
            nextAddress = 0
            phase = .connecting
            tryNextAddress()
        }
    }

    private func tryNextAddress() {
        guard let endpoint else { return }
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            let s = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if s < 0 {
                lastConnectError = "socket: \(Self.errnoString(rt_errno()))"
                continue
            }
            applySocketOptions(s, endpoint.options)
            var storage = address.storage
            let rc = withUnsafePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(s, $0, address.length) }
            }
            let err = rc == 0 ? 0 : rt_errno()
            if rc == 0 || err == EINPROGRESS {
                fd = s
                interest = .writable
                registration = eventLoop.register(fd: s, interest: .writable) { [weak self] ready in
                    self?.handle(ready)
                }
                if rc == 0 { tcpConnected() }
                return
            }
            lastConnectError = connectError(address.numericHost, err)
            Glibc.close(s)
        }
        let what = endpoint.proxy.map { "the proxy \($0.host):\($0.port)" } ?? "\(endpoint.host):\(endpoint.port)"
        fail(RealtimeError(.network, detail: "cannot connect to \(what) (\(lastConnectError))"))
    }

    private func applySocketOptions(_ s: Int32, _ options: ByteStreamOptions) {
        func set(_ level: Int32, _ name: Int32, _ value: Int32) {
            var v = value
            _ = setsockopt(s, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
        }
        if options.noDelay { set(Int32(IPPROTO_TCP), TCP_NODELAY, 1) }
        if let ka = options.keepAlive {
            set(SOL_SOCKET, SO_KEEPALIVE, 1)
            set(Int32(IPPROTO_TCP), TCP_KEEPIDLE, Int32(clamping: max(ka.idle, 1)))
            set(Int32(IPPROTO_TCP), TCP_KEEPINTVL, Int32(clamping: max(ka.interval, 1)))
            set(Int32(IPPROTO_TCP), TCP_KEEPCNT, Int32(clamping: max(ka.count, 1)))
        }
        if let userTimeout = options.userTimeout {
            let ms = userTimeout.components.seconds * 1000 + userTimeout.components.attoseconds / 1_000_000_000_000_000
            set(Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, Int32(clamping: max(ms, 0)))
        }
    }

    private func tcpConnected() {
        guard let endpoint else { return }
        if let proxy = endpoint.proxy {
            // RFC 9110 §9.3.6: ask for the tunnel; nothing else is sent until it is open.
            phase = .tunnelling
            tunnelHead = HTTPResponseHeadParser()
            let request = proxy.connectRequest(host: endpoint.host, port: endpoint.port)
            outBuffer.append(contentsOf: request)
            bytesQueued += UInt64(request.count)
            flush()
        } else {
            secureOrOpen(leftover: [])
        }
    }

    /// The proxy answered `CONNECT`: on 2xx the tunnel is the connection from here on.
    private func receiveTunnelAnswer(_ bytes: UnsafeRawBufferPointer) {
        guard var parser = tunnelHead else { return }
        let parsed: (head: HTTPResponseHead, rest: [UInt8])?
        do {
            parsed = try parser.parse(bytes)
        } catch {
            fail(RealtimeError(.proxy, detail: "malformed answer to CONNECT: \(error.detail ?? error.code.description)"))
            return
        }
        tunnelHead = parser
        guard let (head, rest) = parsed else { return }
        tunnelHead = nil
        if let refusal = HTTPProxy.tunnelError(for: head) {
            fail(refusal)
            return
        }
        secureOrOpen(leftover: rest)
    }

    /// TCP (or the tunnel) is up: start TLS, or open. `leftover` are bytes that came behind
    /// the proxy's answer, already the endpoint's.
    private func secureOrOpen(leftover: [UInt8]) {
        guard let endpoint else { return }
        if let tlsConfig = endpoint.tls {
            do {
                tls = try TLSSession(configuration: tlsConfig, host: endpoint.host)
            } catch {
                fail(error)
                return
            }
            phase = .handshaking
            updateInterest()
            if !leftover.isEmpty { leftover.withUnsafeBytes { tls?.receive($0) } }
            advanceHandshake()
        } else {
            becomeOpen()
            if !leftover.isEmpty, phase == .open {
                leftover.withUnsafeBytes { delegate?.byteStream(self, didRead: $0) }
            }
        }
    }

    private func advanceHandshake() {
        guard let tls, phase == .handshaking else { return }
        let done: Bool
        do {
            done = try tls.handshake()
        } catch {
            flushCiphertext() // deliver the alert, best effort
            fail(error)
            return
        }
        flushCiphertext()
        if done {
            becomeOpen()
            // Records that arrived with the last handshake flight (e.g. TLS 1.3 tickets, or
            // early application data) are already buffered inside OpenSSL.
            drainTLS()
        }
    }

    private func becomeOpen() {
        guard phase != .closed else { return }
        phase = .open
        if let t = connectTimer {
            eventLoop.cancel(t)
            connectTimer = nil
        }
        let early = earlyWrites
        earlyWrites = []
        earlyBytes = 0
        for (bytes, completion) in early {
            enqueue(bytes, completion: completion)
        }
        updateInterest()
        delegate?.byteStreamDidConnect(self)
        if phase == .open { flush() }
    }

    // MARK: Readiness

    private func handle(_ ready: IOInterest) {
        switch phase {
        case .connecting:
            guard ready.contains(.writable) || ready.contains(.error) || ready.contains(.hangup) else { return }
            var soError: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
            if soError == 0 && !ready.contains(.error) {
                tcpConnected()
            } else {
                lastConnectError = connectError(addresses[nextAddress - 1].numericHost, soError)
                releaseSocket()
                tryNextAddress()
            }
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

    private func readSocket() {
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
                    if phase == .handshaking { advanceHandshake() } else { drainTLS() }
                } else {
                    delegate?.byteStream(self, didRead: bytes)
                }
                if n < readBuffer.count { return }
            } else if n == 0 {
                if phase == .tunnelling {
                    fail(RealtimeError(.network, detail: "the proxy closed the connection before answering CONNECT"))
                } else if phase == .handshaking {
                    fail(RealtimeError(.tls, detail: "connection closed during the TLS handshake"))
                } else {
                    finish(nil)
                }
                return
            } else {
                let err = rt_errno()
                if err == EAGAIN || err == EWOULDBLOCK { return }
                if err == EINTR { continue }
                fail(RealtimeError(.network, detail: "read: \(Self.errnoString(err))"))
                return
            }
        }
    }

    /// Delivers the plaintext OpenSSL holds, until it needs more ciphertext or reads pause.
    private func drainTLS() {
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

    public func pauseReading() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        guard !readPaused else { return }
        readPaused = true
        updateInterest()
    }

    public func resumeReading() {
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

    private func updateInterest() {
        guard let registration, phase != .closed else { return }
        var wanted: IOInterest = []
        switch phase {
        case .connecting:
            wanted = .writable
        case .tunnelling, .handshaking:
            wanted.insert(.readable)
            if outOffset < outBuffer.count { wanted.insert(.writable) }
        case .open:
            if !readPaused { wanted.insert(.readable) }
            if outOffset < outBuffer.count { wanted.insert(.writable) }
        default:
            break
        }
        if wanted != interest {
            interest = wanted
            eventLoop.modify(registration, interest: wanted)
        }
    }

    // MARK: Writing

    public func write(_ bytes: [UInt8], completion: (@Sendable (RealtimeError?) -> Void)?) {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        switch phase {
        case .closed:
            completion?(RealtimeError(.notConnected, detail: "stream closed"))
        case .idle, .resolving, .connecting, .tunnelling, .handshaking:
            earlyWrites.append((bytes, completion))
            earlyBytes += bytes.count
        case .open:
            if batchDepth > 0 {
                if tls != nil {
                    batchPlaintext.append(contentsOf: bytes)
                    if let completion { batchCompletions.append(completion) }
                } else {
                    outBuffer.append(contentsOf: bytes)
                    bytesQueued += UInt64(bytes.count)
                    if let completion { completions.append((bytesQueued, completion)) }
                }
                return
            }
            enqueue(bytes, completion: completion)
            flush()
        }
    }

    public func beginBatch() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        batchDepth += 1
    }

    public func endBatch() {
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
            for callback in waiting { completions.append((bytesQueued, callback)) }
        }
        flush()
    }

    private func enqueue(_ bytes: [UInt8], completion: (@Sendable (RealtimeError?) -> Void)?) {
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
            bytesQueued += UInt64(tls.drainCiphertext(into: &outBuffer))
        } else if outOffset == outBuffer.count {
            // Nothing queued: try the kernel straight from the caller's array, and copy
            // only what it did not take.
            let sent = bytes.withUnsafeBytes { raw in sendSome(raw) }
            guard sent >= 0 else {
                completion?(RealtimeError(.notConnected, detail: "stream closed"))
                return
            }
            bytesQueued += UInt64(bytes.count)
            bytesSent += UInt64(sent)
            if sent < bytes.count {
                outBuffer.removeAll(keepingCapacity: true)
                outOffset = 0
                outBuffer.append(contentsOf: bytes[sent...])
            }
        } else {
            outBuffer.append(contentsOf: bytes)
            bytesQueued += UInt64(bytes.count)
        }
        if let completion { completions.append((bytesQueued, completion)) }
    }

    /// Writes as much as the kernel takes; -1 when the stream failed (and was closed).
    private func sendSome(_ raw: UnsafeRawBufferPointer) -> Int {
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
            fail(RealtimeError(.network, detail: "write: \(Self.errnoString(err))"))
            return -1
        }
        return offset
    }

    private func flushCiphertext() {
        guard let tls else { return }
        bytesQueued += UInt64(tls.drainCiphertext(into: &outBuffer))
        flush()
    }

    private func flush() {
        guard fd >= 0, phase == .open || phase == .handshaking || phase == .tunnelling else { return }
        if outOffset < outBuffer.count {
            let sent = outBuffer.withUnsafeBytes { raw in
                sendSome(UnsafeRawBufferPointer(rebasing: raw[outOffset...]))
            }
            guard sent >= 0 else { return }
            outOffset += sent
            bytesSent += UInt64(sent)
            if outOffset == outBuffer.count {
                outBuffer.removeAll(keepingCapacity: outBuffer.capacity <= 1 << 20)
                outOffset = 0
            } else if outOffset >= 1 << 16 && outOffset * 2 >= outBuffer.count {
                outBuffer.removeFirst(outOffset)
                outOffset = 0
            }
        }
        updateInterest()
        fireCompletions()
    }

    private func fireCompletions() {
        var ready: [@Sendable (RealtimeError?) -> Void] = []
        while completionHead < completions.count, completions[completionHead].threshold <= bytesSent {
            ready.append(completions[completionHead].callback)
            completionHead += 1
        }
        if completionHead > 0 && completionHead == completions.count {
            completions.removeAll(keepingCapacity: true)
            completionHead = 0
        } else if completionHead >= 256 {
            completions.removeFirst(completionHead)
            completionHead = 0
        }
        for callback in ready { callback(nil) }
    }

    // MARK: Ending

    public func close() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        guard phase != .closed else { return }
        if phase == .open, let tls {
            tls.shutdown()
            bytesQueued += UInt64(tls.drainCiphertext(into: &outBuffer))
            if outOffset < outBuffer.count, fd >= 0 {
                // One best-effort attempt to deliver close_notify; never block.
                _ = outBuffer.withUnsafeBytes { raw in
                    send(fd, raw.baseAddress! + outOffset, raw.count - outOffset, Int32(MSG_NOSIGNAL))
                }
            }
        }
        tearDown(RealtimeError(.notConnected, detail: "stream closed"))
    }

    /// The peer ended the stream (EOF); a close without error.
    private func finish(_ error: RealtimeError?) {
        guard phase != .closed else { return }
        let delegate = self.delegate
        tearDown(RealtimeError(.notConnected, detail: "connection closed by peer"))
        delegate?.byteStream(self, didCloseWith: error)
    }

    private func fail(_ error: RealtimeError) {
        guard phase != .closed else { return }
        let delegate = self.delegate
        tearDown(error)
        delegate?.byteStream(self, didCloseWith: error)
    }

    private func tearDown(_ pendingError: RealtimeError) {
        phase = .closed
        if let t = connectTimer {
            eventLoop.cancel(t)
            connectTimer = nil
        }
        releaseSocket()
        tls = nil
        tunnelHead = nil
        outBuffer = []
        outOffset = 0
        let waiting = completions[completionHead...].map(\.callback) + earlyWrites.compactMap(\.1) + batchCompletions
        batchCompletions = []
        batchPlaintext = []
        completions = []
        completionHead = 0
        earlyWrites = []
        earlyBytes = 0
        for callback in waiting { callback(pendingError) }
    }

    private func releaseSocket() {
        if let r = registration { eventLoop.deregister(r) }
        registration = nil
        interest = []
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }

    /// A socket error as both transports word it: `strerror` with a lower-case first letter
    /// ("connection refused").
    static func errnoString(_ err: Int32) -> String {
        let text = String(cString: strerror(err))
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// Why connecting to `address` failed; the address is named only when it is not the host
    /// itself (a name that resolved to several addresses).
    private func connectError(_ address: String, _ err: Int32) -> String {
        let host = endpoint.map { $0.host.hasPrefix("[") ? String($0.host.dropFirst().dropLast()) : $0.host }
        return address == host ? Self.errnoString(err) : "\(address): \(Self.errnoString(err))"
    }
}
#endif

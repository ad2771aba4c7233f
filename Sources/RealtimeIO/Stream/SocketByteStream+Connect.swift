#if os(Linux)
import CLinux
import Glibc
@_spi(Transport) import RealtimeCore

extension SocketByteStream {
    // MARK: Connect: DNS, addresses, tunnel, TLS

    package func connect(to endpoint: ByteStreamEndpoint) {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        precondition(phase == .idle, "SocketByteStream.connect called twice")
        self.endpoint = endpoint
        phase = .resolving
        armConnectTimer()
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

    /// The connect timeout, from now (the start, or the end of a wait for the stream's turn).
    private func armConnectTimer() {
        guard let endpoint, let timeout = endpoint.options.connectTimeout else { return }
        cancelConnectTimer()
        connectTimer = eventLoop.schedule(after: timeout) { [weak self] in
            guard let self, self.phase != .open, self.phase != .closed else { return }
            self.connectTimer = nil
            let via = endpoint.proxy.map { " through the proxy \($0.host):\($0.port)" } ?? ""
            self.fail(RealtimeError(.connectTimeout, detail: "connect to \(endpoint.host):\(endpoint.port)\(via) timed out"))
        }
    }

    func cancelConnectTimer() {
        guard let t = connectTimer else { return }
        eventLoop.cancel(t)
        connectTimer = nil
    }

    private func resolved(_ result: Result<[ResolvedAddress], ResolvedAddress.DNSError>) {
        guard phase == .resolving, let endpoint else { return }
        switch result {
        case .failure(let e):
            let what = endpoint.proxy.map { "the proxy \($0.host)" } ?? endpoint.host
            fail(RealtimeError(.dnsFailure, detail: "cannot resolve \(what): \(e.message)"))
        case .success(let list):
            // Through a proxy the addresses are the proxy's.
            connector = AddressConnector(addresses: list, options: endpoint.options, host: endpoint.proxy?.host ?? endpoint.host)
            guard let limit = endpoint.pendingLimit else { return beginConnecting() }
            let entry = eventLoop.pendingConnections.enter(Self.pendingKey(endpoint, list), limit: max(1, limit)) {
                [weak self] in self?.admittedAfterWaiting()
            }
            pendingTicket = entry.ticket
            if entry.admitted { return beginConnecting() }
            cancelConnectTimer()
            delegate?.byteStreamWaitsForItsTurn(self)
        }
    }

    /// Whose turn a stream waits for (RFC 6455 §4.1, erratum 3473): the first address it
    /// will try and the port, however the host is named; through a proxy, which resolves
    /// the name, the host name and port.
    static func pendingKey(_ endpoint: ByteStreamEndpoint, _ addresses: [ResolvedAddress]) -> String {
        if endpoint.proxy == nil, let first = addresses.first { return "\(first.numericHost) \(endpoint.port)" }
        return "name \(endpoint.host) \(endpoint.port)"
    }

    private func admittedAfterWaiting() {
        guard phase == .resolving, pendingTicket != nil else { return }
        delegate?.byteStreamBeginsAfterWaiting(self)
        guard phase == .resolving else { return }
        armConnectTimer()
        beginConnecting()
    }

    private func beginConnecting() {
        phase = .connecting
        tryNextAddress()
    }

    /// The owner's opening handshake is over: the next stream waiting for this address may go.
    package func openingEnded() {
        precondition(eventLoop.inEventLoop, "SocketByteStream must be used on its event loop")
        leavePendingLine()
    }

    func leavePendingLine() {
        guard let ticket = pendingTicket else { return }
        pendingTicket = nil
        eventLoop.pendingConnections.leave(ticket)
    }

    private func tryNextAddress() {
        guard var connector, let endpoint else { return }
        let step = connector.connectNext()
        self.connector = connector
        switch step {
        case .connected(let s):
            watch(s)
            tcpConnected()
        case .inProgress(let s):
            watch(s)
        case .exhausted:
            let what = endpoint.proxy.map { "the proxy \($0.host):\($0.port)" } ?? "\(endpoint.host):\(endpoint.port)"
            fail(RealtimeError(.network, detail: "cannot connect to \(what) (\(connector.lastError))"))
        }
    }

    /// Registers the connecting socket, watched for writability (connect's completion).
    private func watch(_ s: Int32) {
        fd = s
        interest = .writable
        registration = eventLoop.register(fd: s, interest: .writable) { [weak self] ready in
            self?.handle(ready)
        }
    }

    /// The in-progress connect reported: connected, or on to the next address.
    func connectSignalled(reportedError: Bool) {
        guard var connector else { return }
        let connected = connector.finishConnect(fd, reportedError: reportedError)
        self.connector = connector
        if connected {
            tcpConnected()
        } else {
            releaseSocket()
            tryNextAddress()
        }
    }

    private func tcpConnected() {
        guard let endpoint else { return }
        connector = nil
        if let proxy = endpoint.proxy {
            // RFC 9110 §9.3.6: ask for the tunnel; nothing else is sent until it is open.
            phase = .tunnelling
            let tunnel = ProxyTunnel(proxy: proxy, host: endpoint.host, port: endpoint.port)
            self.tunnel = tunnel
            outbound.enqueue(tunnel.request, completion: nil)
            flush()
        } else {
            secureOrOpen(leftover: [])
        }
    }

    /// The proxy's answer to `CONNECT`: on 2xx the tunnel is the connection from here on.
    func receiveTunnelAnswer(_ bytes: UnsafeRawBufferPointer) {
        guard var tunnel else { return }
        let outcome = tunnel.receive(bytes)
        self.tunnel = tunnel
        switch outcome {
        case nil:
            return
        case .refused(let error):
            fail(error)
        case .established(let leftover):
            self.tunnel = nil
            secureOrOpen(leftover: leftover)
        }
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

    /// Advances the TLS handshake; once it completes, delivers the records that came with its
    /// last flight — into `readBuffer` when the caller holds the loop's receive buffer.
    func advanceHandshake(readBuffer: UnsafeMutableRawBufferPointer? = nil) {
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
            if let readBuffer { drainTLS(into: readBuffer) } else { drainTLS() }
        }
    }

    private func becomeOpen() {
        guard phase != .closed else { return }
        phase = .open
        cancelConnectTimer()
        updateInterest()
        delegate?.byteStreamDidConnect(self)
        if phase == .open { flush() }
    }
}
#endif

import Foundation
import Glibc
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestServer
import RealtimeWebSocket

/// WebSocket through an HTTP proxy (`CONNECT` tunnel on our socket, before TLS and the
/// handshake) against the loopback ``TestProxy`` and ``TestServer``. The environment rules
/// are tested in a child process (RealtimeTests' `ProxyEnvironmentTests`).
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketTransportProxyTests {
    static let certificates: TestCertificates = {
        try! TestCertificates.shared()
    }()

    static func options(_ proxy: ProxyConfiguration) -> WebSocketOptions {
        var o = TransportProbe.quietOptions
        o.proxy = proxy
        return o
    }

    static func start(_ configuration: TestProxy.Configuration = .init()) throws -> TestProxy {
        let proxy = TestProxy(configuration: configuration)
        try proxy.start()
        return proxy
    }

    /// Sends two messages and expects them echoed (the binary one spans many TLS records),
    /// then closes cleanly.
    static func echo(_ probe: TransportProbe, size: Int = 200_000) async throws {
        #expect(await probe.opened()?.status == 101)
        try await probe.transport.send(.text("through the tunnel"))
        let big = (0..<size).map { UInt8($0 % 251) }
        try await probe.transport.send(.binary(big))
        #expect(await probe.message()?.text == "through the tunnel")
        let m = await probe.message()
        let same = m?.bytes == big
        #expect(same, "\(String(describing: probe.end)) \(m?.bytes.count ?? -1)")
        probe.transport.close()
        let (end, _) = await probe.ended()
        #expect(end?.clean == true)
    }

    @Test func wsEchoThroughTheTunnel() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let proxy = try Self.start()
        defer { proxy.stop() }
        try await withDeadline {
            try await Self.echo(TransportProbe(server.wsURL("/ws"), options: Self.options(.url(proxy.url.absoluteString))))
        }
        let seen = try #require(proxy.requests.first)
        #expect(proxy.requests.count == 1)
        #expect(seen.requestLine == "CONNECT 127.0.0.1:\(server.port) HTTP/1.1")
        #expect(seen.headers["Host"] == "127.0.0.1:\(server.port)")
        #expect(seen.outcome == .tunnelled)
        #expect(!seen.carriedProxyAuthorization)
        #expect(server.requests(path: "/ws").count == 1)
    }

    @Test func wssEchoWithTLSAgainstTheOrigin() async throws {
        let server = TestServer(configuration: .init(tls: .init(certificates: Self.certificates)))
        try server.start()
        defer { server.stop() }
        // `origin.test` resolves only inside the proxy: the client never looks it up.
        let proxy = try Self.start(.init(hosts: ["origin.test": "127.0.0.1"]))
        defer { proxy.stop() }
        let options = Self.options(.url(proxy.url.absoluteString))
        try await withDeadline {
            let probe = TransportProbe(URL(string: "wss://localhost:\(server.port)/ws")!, options: options) {
                $0.tls.trustRoots = .file(Self.certificates.caCertificateFile)
            }
            try await Self.echo(probe)
            // The certificate names localhost and 127.0.0.1, not origin.test: verified against
            // the origin's name (not the proxy's 127.0.0.1), it must fail…
            let mismatch = TransportProbe(URL(string: "wss://origin.test:\(server.port)/ws")!, options: options) {
                $0.tls.trustRoots = .file(Self.certificates.caCertificateFile)
            }
            let (end, _) = await mismatch.ended()
            #expect(end?.error?.code == .tls)
            // …while the tunnel itself works (no verification).
            let unverified = TransportProbe(URL(string: "wss://origin.test:\(server.port)/ws")!, options: options) {
                $0.tls.verification = .insecureNoVerification
            }
            try await Self.echo(unverified)
        }
        #expect(proxy.requests.map(\.target) == ["localhost:\(server.port)", "origin.test:\(server.port)", "origin.test:\(server.port)"])
        #expect(server.requests(path: "/ws").allSatisfy { $0.isTLS })
        #expect(server.requests(path: "/ws").count == 2)
    }

    @Test func credentialsFromTheProxyURL() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let proxy = try Self.start(.init(credentials: ("alice", "s3cret:/@ é")))
        defer { proxy.stop() }
        let url = proxy.url(user: "alice", password: "s3cret:/@ é").absoluteString
        try await withDeadline {
            try await Self.echo(TransportProbe(server.wsURL("/ws"), options: Self.options(.url(url))))
        }
        #expect(proxy.requests.map(\.outcome) == [.tunnelled])
        #expect(proxy.requests.first?.carriedProxyAuthorization == true)
        #expect(server.requests(path: "/ws").first?.headers["Proxy-Authorization"] == nil)
    }

    @Test func wrongOrMissingCredentialsAreA407ProxyErrorThatStops() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let proxy = try Self.start(.init(credentials: ("alice", "right")))
        defer { proxy.stop() }
        for url in [proxy.url(user: "alice", password: "wrong"), proxy.url] {
            try await withDeadline {
                let probe = TransportProbe(server.wsURL("/ws"), options: Self.options(.url(url.absoluteString)))
                let (end, _) = await probe.ended()
                let error = try #require(end?.error)
                #expect(error.code == .proxy)
                #expect(error.status == 407)
                #expect(error.detail?.contains("Basic") == true)
                #expect(!error.description.contains("wrong"))
                #expect(end?.requestWasDelivered == false)
                let context = ReconnectContext(attempt: 1, opened: false, canRefreshCredentials: true)
                #expect(ReconnectPolicy.default.verdict(for: end!, context: context) == .stop(reason: error))
            }
        }
        #expect(proxy.requests.map(\.carriedProxyAuthorization) == [true, false])
        #expect(server.requests(path: "/ws").isEmpty)
    }

    @Test func refusedTunnelCarriesTheStatus() async throws {
        for (status, retried) in [(403, false), (502, true)] {
            let proxy = try Self.start(.init(refusal: status))
            defer { proxy.stop() }
            try await withDeadline {
                let probe = TransportProbe(URL(string: "ws://127.0.0.1:9/ws")!, options: Self.options(.url(proxy.url.absoluteString)))
                let (end, _) = await probe.ended()
                #expect(end?.error?.code == .proxy)
                #expect(end?.error?.status == status)
                let verdict = ReconnectPolicy.default.verdict(for: end!, context: ReconnectContext(attempt: 1, opened: false))
                #expect((verdict == .backoff(retryAfter: nil)) == retried)
            }
        }
    }

    @Test func connectTimeoutCoversTheConnectExchange() async throws {
        // A listener nobody accepts on: TCP connects (the kernel's backlog), CONNECT is never answered.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(listen(fd, 8) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = UInt16(bigEndian: address.sin_port)
        // Only the connect timer reports `connectTimeout`: the code says it covered the
        // unanswered CONNECT (the deadline is the hang guard).
        try await withDeadline {
            let probe = TransportProbe(URL(string: "ws://127.0.0.1:9/ws")!, options: Self.options(.url("http://127.0.0.1:\(port)"))) {
                $0.connectTimeout = .milliseconds(400)
            }
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .connectTimeout, "\(String(describing: end))")
        }
    }

    @Test func deadProxyAndUnsupportedSchemes() async throws {
        try await withDeadline {
            let dead = TransportProbe(URL(string: "ws://127.0.0.1:9/ws")!, options: Self.options(.url("http://127.0.0.1:1")))
            let (end, _) = await dead.ended()
            #expect(end?.error?.code == .network)
            #expect(end?.error?.detail?.contains("proxy") == true)
            for url in ["socks5h://127.0.0.1:1080", "https://127.0.0.1:3128"] {
                let probe = TransportProbe(URL(string: "ws://127.0.0.1:9/ws")!, options: Self.options(.url(url)))
                let (end, _) = await probe.ended()
                #expect(end?.error?.code == .invalidConfiguration, "\(url)")
            }
        }
    }
}

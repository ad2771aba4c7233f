#if os(Linux)
import Glibc
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SSE through the loopback ``TestProxy`` with an explicit proxy URL: absolute-form
/// forwarding for `http`, `CONNECT` tunnels for `https`, Basic proxy credentials, and how
/// refusals are classified. The environment rules (`http_proxy`, `no_proxy`…) are process-wide
/// and are tested in a child process (RealtimeTests' `ProxyEnvironmentTests`).
@Suite("SSETransport: proxy", .timeLimit(.minutes(1)))
struct SSETransportProxyTests {
    private static let fixture: Result<TestCertificates, any Error> = Result {
        try TestCertificates.shared()
    }

    /// Plain and TLS origins, per test (a dropped TestServer stops itself).
    let server: TestServer
    let tlsServer: TestServer
    let certificates: TestCertificates

    init() throws {
        certificates = try Self.fixture.get()
        server = TestServer()
        try server.start()
        tlsServer = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try tlsServer.start()
    }

    /// A started proxy.
    private func startProxy(_ configuration: TestProxy.Configuration = .init()) throws -> TestProxy {
        let proxy = TestProxy(configuration: configuration)
        try proxy.start()
        return proxy
    }

    /// `path` on the TLS origin, trusting the test CA.
    private func tlsRequest(_ path: String) -> TransportRequest {
        request(tlsServer.url(path)) { $0.tls.trustRoots = .file(certificates.caCertificateFile) }
    }

    private func options(_ proxy: URL) -> SSEOptions {
        var options = SSEOptions()
        options.proxy = .url(proxy.absoluteString)
        return options
    }

    @Test("http: the request goes to the proxy in absolute form and the events come back")
    func plainHTTP() async throws {
        let proxy = try startProxy()
        defer { proxy.stop() }
        let url = server.url("/sse?count=3")
        let r = await run(SSETransport(request: request(url), options: options(proxy.url)))
        #expect(r.ids == ["1", "2", "3"])
        #expect(r.end?.clean == true)
        let seen = try #require(proxy.requests.first)
        #expect(proxy.requests.count == 1)
        #expect(seen.method == "GET")
        #expect(seen.target == url.absoluteString)
        #expect(seen.outcome == .forwarded)
        #expect(!seen.carriedProxyAuthorization)
        let origin = try #require(server.requests(path: "/sse").first)
        #expect(origin.target == "/sse?count=3")
        #expect(origin.headers["Accept"] == "text/event-stream")
        #expect(origin.headers["Host"] == "127.0.0.1:\(server.port)")
    }

    @Test("http: events stream through the proxy one by one (no buffering until the end)")
    func streamsWithoutBuffering() async throws {
        let proxy = try startProxy()
        defer { proxy.stop() }
        // Two events, then the server holds the stream open (a comment every 200 ms keeps the
        // idle timer quiet on a slow machine): the events only arrive if the proxy passes bytes
        // on as they come. A buffering proxy would deliver nothing until the idle timeout.
        let transport = SSETransport(
            request: request(server.url("/sse?count=2&end=hold&ping_ms=200")) { $0.idleTimeout = .seconds(30) },
            options: options(proxy.url))
        let transportEvents = transport.eventStream(capacity: transport.request.eventBufferCapacity)
        var ids: [String] = []
        var end: TransportEnd?
        for await event in transportEvents {
            switch event {
            case .message(let m):
                ids.append(m.id ?? "")
                if ids.count == 2 { transport.close() }
            case .ended(let e): end = e
            default: break
            }
        }
        #expect(ids == ["1", "2"])
        #expect(end?.error?.code == .cancelled)
    }

    @Test("https: a CONNECT tunnel, TLS verified against the origin with the test CA")
    func connectTunnel() async throws {
        let proxy = try startProxy()
        defer { proxy.stop() }
        let r = await run(SSETransport(request: tlsRequest("/sse?count=2"), options: options(proxy.url)))
        #expect(r.ids == ["1", "2"])
        #expect(r.opened.first?.url.scheme == "https")
        let seen = try #require(proxy.requests.first)
        #expect(seen.method == "CONNECT")
        #expect(seen.target == "127.0.0.1:\(tlsServer.port)")
        #expect(seen.outcome == .tunnelled)
        #expect(tlsServer.requests(path: "/sse").first?.isTLS == true)
    }

    @Test("credentials in the proxy URL answer the proxy's 407 challenge (http and https)")
    func credentials() async throws {
        let proxy = try startProxy(.init(credentials: ("alice", "s3cret:/@")))
        defer { proxy.stop() }
        let authorized = options(proxy.url(user: "alice", password: "s3cret:/@"))
        let http = await run(SSETransport(request: request(server.url("/sse?count=2")), options: authorized))
        #expect(http.ids == ["1", "2"])
        let https = await run(SSETransport(request: tlsRequest("/sse?count=2"), options: authorized))
        #expect(https.ids == ["1", "2"])
        let passed = proxy.requests.filter { $0.outcome != .refused(status: 407) }
        #expect(passed.map(\.outcome) == [.forwarded, .tunnelled])
        #expect(passed.allSatisfy { $0.carriedProxyAuthorization })
        // The proxy credentials stop at the proxy.
        #expect(server.requests(path: "/sse").first?.headers["Proxy-Authorization"] == nil)
    }

    @Test("wrong or missing proxy credentials: a `proxy` error with status 407, class http (not retried)")
    func wrongCredentials() async throws {
        let proxy = try startProxy(.init(credentials: ("alice", "right")))
        defer { proxy.stop() }
        for proxyURL in [proxy.url(user: "alice", password: "wrong"), proxy.url] {
            let http = await run(SSETransport(request: request(server.url("/sse?count=2")), options: options(proxyURL)))
            let https = await run(SSETransport(request: tlsRequest("/sse?count=2"), options: options(proxyURL)))
            for r in [http, https] {
                #expect(r.opened.isEmpty)
                let error = try #require(r.end?.error)
                #expect(error.code == .proxy)
                #expect(error.status == 407)
                #expect(error.failureClass == .http)
                #expect(!error.description.contains("wrong"))
                #expect(ReconnectPolicy.default.verdict(for: r.end!, context: ReconnectContext(attempt: 1, opened: false, canRefreshCredentials: true)) == .stop(reason: error))
            }
        }
        #expect(server.requests(path: "/sse").isEmpty)
        #expect(tlsServer.requests(path: "/sse").isEmpty)
    }

    @Test("a refused CONNECT carries the proxy's status: 403 stops, 502 is retried")
    func refusedTunnel() async throws {
        for (status, retried) in [(403, false), (502, true)] {
            let proxy = try startProxy(.init(refusal: status))
            defer { proxy.stop() }
            let r = await run(SSETransport(request: tlsRequest("/sse?count=2"), options: options(proxy.url)))
            let end = try #require(r.end)
            #expect(end.error?.code == .proxy)
            #expect(end.error?.status == status)
            let verdict = ReconnectPolicy.default.verdict(for: end, context: ReconnectContext(attempt: 1, opened: false, canRefreshCredentials: true))
            if retried {
                #expect(verdict == .backoff(retryAfter: nil))
            } else {
                #expect(verdict == .stop(reason: end.error))
            }
        }
    }
}
#endif

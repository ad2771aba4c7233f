#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// The same failure is worded the same way by both transports; SSE adds curl's number as a
/// trailing `[curl N]` detail, never as the message.
@Suite(.timeLimit(.minutes(1)))
struct TransportErrorWordingTests {
    /// The attempt's end, for either transport.
    private func end(_ transport: any Transport) async -> TransportEnd? {
        let transportEvents = transport.eventStream()
        var result: TransportEnd?
        for await e in transportEvents { if case .ended(let end) = e { result = end } }
        return result
    }

    private func request(_ url: String, _ configure: (inout TransportRequest) -> Void = { _ in }) -> TransportRequest {
        var r = TransportRequest(url: URL(string: url)!)
        r.connectTimeout = .seconds(5)
        configure(&r)
        return r
    }

    /// `detail` without SSE's trailing `[curl N]`.
    private func message(_ end: TransportEnd?) -> String? {
        guard let detail = end?.error?.detail else { return nil }
        guard let bracket = detail.range(of: " [curl ", options: .backwards) else { return detail }
        return String(detail[..<bracket.lowerBound])
    }

    @Test("connection refused")
    func refused() async throws {
        // A bound port that never listens: a port freed by stopping a server can be taken
        // at once by another suite's server running in parallel.
        let closed = try ClosedPort()
        let port = closed.port
        defer { withExtendedLifetime(closed) {} }
        let sse = await end(SSETransport(request: request("http://127.0.0.1:\(port)/sse")))
        let ws = await end(WebSocketTransport(request: request("ws://127.0.0.1:\(port)/ws")))
        #expect(message(sse) == "cannot connect to 127.0.0.1:\(port) (connection refused)")
        #expect(message(ws) == message(sse))
        #expect(sse?.error?.detail?.hasSuffix("[curl 7]") == true)
        #expect(sse?.error?.code == ws?.error?.code)
    }

    @Test("connection reset by the server mid-stream")
    func reset() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        let sse = await end(SSETransport(request: request("http://127.0.0.1:\(server.port)/sse?count=100&cut=20&reset=1")))
        let ws = await end(WebSocketTransport(request: request("ws://127.0.0.1:\(server.port)/ws?drop_mid_frame=1&reset=1")))
        #expect(message(sse) == "read: connection reset by peer", "\(String(describing: sse?.error))")
        #expect(message(ws) == message(sse), "\(String(describing: ws?.error))")
    }

    @Test("a certificate from an unknown CA, and one for another host, say why on both")
    func certificateReasons() async throws {
        let certificates = try TestCertificates.shared()
        let server = TestServer(configuration: .init(tls: .init(certificates: certificates)))
        try server.start()
        defer { server.stop() }
        // The system store does not know the test CA.
        let sse = await end(SSETransport(request: request("https://127.0.0.1:\(server.port)/sse")))
        let ws = await end(WebSocketTransport(request: request("wss://127.0.0.1:\(server.port)/ws")))
        #expect(message(sse)?.hasPrefix("certificate verify failed: ") == true, "\(String(describing: sse?.error))")
        #expect(message(sse)?.contains("certificate verify failed: certificate verify failed") == false)
        #expect(message(ws) == message(sse))

        // `origin.test` resolves only inside the proxy; the certificate names localhost.
        let proxy = TestProxy(configuration: .init(hosts: ["origin.test": "127.0.0.1"]))
        try proxy.start()
        defer { proxy.stop() }
        var sseOptions = SSEOptions()
        sseOptions.proxy = .url(proxy.url.absoluteString)
        var wsOptions = WebSocketOptions()
        wsOptions.proxy = .url(proxy.url.absoluteString)
        let trusted: (inout TransportRequest) -> Void = { $0.tls.trustRoots = .file(certificates.caCertificateFile) }
        let sseHost = await end(SSETransport(request: request("https://origin.test:\(server.port)/sse", trusted), options: sseOptions))
        let wsHost = await end(WebSocketTransport(request: request("wss://origin.test:\(server.port)/ws", trusted), options: wsOptions))
        #expect(message(sseHost) == "certificate verify failed: hostname mismatch", "\(String(describing: sseHost?.error))")
        #expect(message(wsHost) == message(sseHost), "\(String(describing: wsHost?.error))")
    }

    @Test("an unsupported proxy scheme is invalid_configuration before any I/O on both")
    func proxyScheme() async throws {
        var sseOptions = SSEOptions()
        sseOptions.proxy = .url("ftp://127.0.0.1:21")
        var wsOptions = WebSocketOptions()
        wsOptions.proxy = .url("ftp://127.0.0.1:21")
        let sse = await end(SSETransport(request: request("http://127.0.0.1:9/sse"), options: sseOptions))
        let ws = await end(WebSocketTransport(request: request("ws://127.0.0.1:9/ws"), options: wsOptions))
        #expect(sse?.error?.code == .invalidConfiguration)
        #expect(ws?.error?.code == .invalidConfiguration)
        #expect(sse?.requestWasDelivered == false && ws?.requestWasDelivered == false)
    }
}
#endif

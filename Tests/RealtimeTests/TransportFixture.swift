#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// One transport kind under the shared ``Transport`` contract on loopback: the test-server URL
/// that makes the server do each thing on that protocol, what its messages read, and how to
/// build the transport. It is the conformance suite's loopback ``ConformanceRig``, beside the
/// embedded one (``EmbeddedRig``), so each contract test runs unchanged against both kinds.
struct TransportFixture: Sendable {
    /// The kinds the conformance suite runs against.
    static let kinds: [TransportKind] = [.sse, .webSocket]

    let kind: TransportKind
    let server: TestServer

    /// Starts a loopback test server (TLS when `tls` is given) with one extra route,
    /// `/silent`, which reads the request and never answers it.
    init(_ kind: TransportKind, tls: TestServer.Configuration.TLS? = nil) throws {
        self.kind = kind
        server = TestServer(configuration: .init(tls: tls))
        server.setHandler(path: "/silent") { writer in try writer.hold() }
        // WebSocket: a 101, one message, then the server neither reads nor answers a close.
        server.setHandler(path: "/deaf") { writer in
            try writer.acceptWebSocket()
            try writer.writeRaw([0x81, 9] + Array("message 1".utf8))
            try writer.hold()
        }
        try server.start()
    }

    // MARK: What the server does

    /// `count` messages, then an orderly end (SSE: the body ends; WebSocket: close 1000).
    func finite(_ count: Int, size: Int? = nil) -> URL {
        url(sse: "/sse?count=\(count)", webSocket: "/ws?mode=send&count=\(count)&close=1000", size: size)
    }

    /// `count` messages, then the connection stays open. With `keepAlive` the server shows
    /// it is alive (SSE: a comment every 50 ms; WebSocket: it answers pings, as it always does).
    func held(_ count: Int, keepAlive: Bool = false) -> URL {
        url(sse: "/sse?count=\(count)&end=hold" + (keepAlive ? "&ping_ms=50" : ""), webSocket: "/ws?mode=send&count=\(count)")
    }

    /// One message, then the server reads nothing and answers no close frame (SSE: it
    /// keeps the response open).
    var deaf: URL { url(sse: "/sse?count=1&end=hold", webSocket: "/deaf") }

    /// The response head (or the 101) arrives, then nothing, and nothing is read.
    var stalled: URL { url(sse: "/sse?stall=1", webSocket: "/ws?stall=1") }

    /// The request is read and never answered: no head, no handshake response.
    var silent: URL { url(sse: "/silent", webSocket: "/silent") }

    /// `whole` messages of 100 bytes, then the connection drops halfway through the next
    /// one (with a TCP RST when `reset`).
    func cutMidMessage(after whole: Int, reset: Bool = false) -> URL {
        precondition(whole < 9, "ids stay one digit, so every message has the same size")
        // SSE: `id: K\n` + `data: ` + 100 + `\n\n` = 114 bytes; WebSocket: 2-byte header + 100.
        let message = kind == .sse ? 114 : 102
        let cut = "&cut=\(whole * message + message / 2)" + (reset ? "&reset=1" : "")
        return url(sse: "/sse?count=\(whole + 1)" + cut, webSocket: "/ws?mode=send&count=\(whole + 1)" + cut, size: 100)
    }

    /// The server refuses with `status` (SSE: the response status; WebSocket: the upgrade's).
    func refused(_ status: Int) -> URL { url(sse: "/sse?status=\(status)", webSocket: "/ws?refuse=\(status)") }

    /// 401 unless the request carries `Authorization: Bearer <token>`.
    func authorized(_ token: String) -> URL { url(sse: "/sse?auth=\(token)", webSocket: "/ws?auth=\(token)") }

    /// The same path on another host and port (nothing listening, a name that never resolves…).
    func elsewhere(host: String, port: UInt16, secure: Bool = false) -> URL {
        let scheme = kind == .sse ? (secure ? "https" : "http") : (secure ? "wss" : "ws")
        return URL(string: "\(scheme)://\(host):\(port)/\(kind == .sse ? "sse" : "ws")")!
    }

    // MARK: What the client sees

    // The text of each message, the opening status and the orderly close code come from
    // ConformanceRig's extension, the same for both environments.

    /// The request the suite sends by default: no idle timeout unless asked, and a connect
    /// timeout far beyond any test (on a loaded machine a test may wait seconds for a thread
    /// before it closes a connecting transport, and the outcome must not depend on that).
    func request(_ url: URL, _ configure: (inout TransportRequest) -> Void = { _ in }) -> TransportRequest {
        var request = TransportRequest(url: url)
        request.connectTimeout = .seconds(60)
        request.idleTimeout = nil
        configure(&request)
        return request
    }

    /// The WebSocket close handshake's bound in this suite: long, so that anything that
    /// waits for it (where it must not) shows.
    static let closeTimeout = Duration.seconds(20)

    /// A transport for `url`, not started. WebSocket heartbeats are off so that only what a
    /// test asks for happens on the wire.
    func make(_ url: URL, _ configure: (inout TransportRequest) -> Void = { _ in }) -> any Transport {
        let request = request(url, configure)
        switch kind {
        case .sse:
            return SSETransport(request: request)
        case .webSocket:
            var options = WebSocketOptions()
            options.heartbeat = .disabled
            options.closeTimeout = Self.closeTimeout
            return WebSocketTransport(request: request, options: options)
        }
    }

    /// `path` on the server in this transport's scheme (`http` or `ws`), for a handler that
    /// the test installs with `server.setHandler(path:)`.
    func handler(_ path: String) -> URL { url(sse: path, webSocket: path) }

    private func url(sse: String, webSocket: String, size: Int? = nil) -> URL {
        let sized = size.map { "&size=\($0)" } ?? ""
        return kind == .sse ? server.url(sse + sized) : server.wsURL(webSocket + sized)
    }
}
#endif

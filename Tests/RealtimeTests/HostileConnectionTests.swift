#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// Hostile HTTP-level behaviour that both transports meet (the SSE response or the WebSocket
/// handshake response), through ``RealtimeClient``: a head that trickles in, redirect loops
/// and redirects to schemes the client must not follow. The map of every hostile case to its
/// test is in `HostileInputMapTests.swift`.
@Suite(.timeLimit(.minutes(1)))
struct HostileConnectionTests {
    @Test("a head that trickles in slower than the connect timeout: connect_timeout, retried after a backoff",
          arguments: TransportFixture.kinds)
    func slowHead(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        fixture.server.setHandler(path: "/slow-head") { writer in
            let head = kind == .sse
                ? "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: late\n\n"
                : "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(writer.webSocketAccept)\r\n\r\n"
            for byte in head.utf8 {
                try writer.writeRaw([byte])
                try writer.sleep(milliseconds: 50)
            }
            writer.abort()
        }
        let url = fixture.handler("/slow-head")
        let run = try await HostileRun.client(url, until: { $0.contains { $0.errorEvent != nil } }) {
            // Well under the head's 3+ s of trickle, long enough for a loaded machine's server
            // thread to have read the request before the deadline.
            $0.connectTimeout = .seconds(1)
            $0.webSocket.heartbeat = .disabled
        }
        #expect(run.opens.isEmpty && run.messages.isEmpty, "\(run.summary)")
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .connectTimeout, "\(error.error)")
        // Retried after the backoff (about a second with the defaults), never at once.
        #expect(error.willRetry && error.retryIn.map { $0 >= .milliseconds(100) } == true, "\(error)")
        // Not at once: no second request by the time the first error is seen (a loaded
        // machine's server thread may not have parsed even the first one yet).
        #expect(fixture.server.requests(path: "/slow-head").count <= 1, "\(run.summary)")
        run.expectNoSecret()
    }

    @Test("a refusal's Retry-After delays the next attempt on both transports", arguments: TransportFixture.kinds)
    func refusalRetryAfter(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        fixture.server.setHandler(path: "/busy") { writer in
            try writer.writeHead(status: 503, headers: ["Retry-After": "3"], framing: .contentLength(4))
            try writer.write("busy")
            try writer.finish()
        }
        let url = fixture.handler("/busy")
        let run = try await HostileRun.client(url, until: { $0.contains { $0.errorEvent != nil } }) {
            $0.backoff = .exponential(initial: .milliseconds(100), maximum: .seconds(30))
        }
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.status == 503 && error.error.retryAfter == .seconds(3), "\(error.error)")
        #expect(error.error.bodyExcerpt == "busy", "\(error.error)")
        #expect(error.willRetry && error.retryIn.map { $0 >= .seconds(3) } == true, "\(error)")
        #expect(fixture.server.requests(path: "/busy").count == 1, "\(run.summary)")
    }

    @Test("a redirect loop ends with a redirect error after maxRedirects, not retried", arguments: TransportFixture.kinds)
    func redirectLoop(kind: TransportKind) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        fixture.server.setHandler(path: "/loop") { writer in
            try writer.writeHead(status: 302, headers: ["Location": "/loop"], framing: .contentLength(0))
        }
        let url = fixture.handler("/loop")
        let run = try await HostileRun.client(url) { $0.maxRedirects = 5 }
        #expect(run.errors.map(\.error.code) == [.redirect], "\(run.summary)")
        #expect(run.errors.first?.willRetry == false && run.stoppedByItself)
        #expect(fixture.server.requests(path: "/loop").count == 6)
        run.expectNoSecret()
    }

    static let unusableTargets = [
        "ftp://127.0.0.1/feed", "file:///etc/passwd", "javascript:alert(1)", "data:text/event-stream,data:%20x%0A%0A",
        "gopher://127.0.0.1:70/", "ssh://root:SECRET-in-location@127.0.0.1/",
    ]

    @Test("a redirect to a scheme that is not HTTP is refused: one request, not retried, the Location never quoted",
          arguments: TransportFixture.kinds, unusableTargets)
    func nonHTTPRedirectTarget(kind: TransportKind, target: String) async throws {
        let fixture = try TransportFixture(kind)
        defer { fixture.server.stop() }
        fixture.server.setHandler(path: "/away") { writer in
            try writer.writeHead(status: 307, headers: ["Location": target], framing: .contentLength(0))
        }
        let url = fixture.handler("/away")
        let run = try await HostileRun.client(url) { _ in }
        let error = try #require(run.errors.first, "\(run.summary)")
        #expect(error.error.code == .redirect, "\(error.error)")
        #expect(!error.willRetry && run.stoppedByItself, "\(run.summary)")
        #expect(fixture.server.requests.count == 1)
        #expect(!error.error.description.contains(target), "\(error.error)")
        run.expectNoSecret()
    }
}
#endif

import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestServer
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// Handshake redirects and refusals on the production connection (``EmbeddedWebSocket``): a
/// chain is followed hop by hop within `maxRedirects` (a relative `Location` against the
/// current URL), one redirect too many fails with `redirect` after exactly `maxRedirects + 1`
/// requests, and a refusal's body excerpt is bounded and never quotes a credential.
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedRedirectTests {
    typealias Handshake = WebSocketEmbeddedCredentialTests

    @Test func aChainOfRedirectsIsFollowedAndTheConnectionOpensAtItsEnd() throws {
        let ws = EmbeddedWebSocket(url: "ws://example.test/hop2")
        ws.start()
        #expect(try Handshake.upgrade(ws).target == "/hop2")
        Handshake.redirect(ws, 301, to: "/hop1")
        #expect(try Handshake.upgrade(ws).target == "/hop1", "relative to the current URL")
        Handshake.redirect(ws, 307, to: "ws://example.test/ws")
        let last = try Handshake.upgrade(ws)
        #expect(last.target == "/ws" && ws.streams.count == 3)
        let accept = TestServer.webSocketAccept(forKey: try #require(last["Sec-WebSocket-Key"]))
        ws.stream.feed(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8))
        let info = try #require(ws.events().lazy.compactMap { if case .opened(let info) = $0 { info } else { nil } }.first)
        #expect(info.url.absoluteString == "ws://example.test/ws")
    }

    @Test(arguments: [0, 1, 3])
    func oneRedirectMoreThanTheLimitFailsWithRedirect(limit: Int) throws {
        let ws = EmbeddedWebSocket(url: "ws://example.test/loop") { $0.maxRedirects = limit }
        ws.start()
        for _ in 0...limit {
            #expect(try Handshake.upgrade(ws).target == "/loop")
            Handshake.redirect(ws, 302, to: "/loop")
        }
        let end = try #require(ws.ended())
        #expect(end.error?.code == .redirect && end.error?.status == 302, "\(String(describing: end.error))")
        #expect(ws.streams.count == limit + 1, "\(limit + 1) requests, no more")
    }

    @Test func aRefusalsBodyExcerptIsBoundedAndNeverQuotesTheCredential() throws {
        let ws = EmbeddedWebSocket { $0.headers = ["Authorization": "Bearer secret-token"] }
        ws.start()
        #expect(try Handshake.upgrade(ws)["Authorization"] == "Bearer secret-token")
        let body = String(repeating: "x", count: 5000)
        ws.stream.feed(Array("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 5000\r\n\r\n\(body)".utf8))
        let error = try #require(ws.ended()?.error)
        #expect(error.code == .handshake && error.status == 401)
        #expect(error.bodyExcerpt?.utf8.count == RealtimeError.maxBodyExcerpt)
        #expect(!error.description.contains("secret-token") && !String(reflecting: error).contains("secret-token"))
    }
}

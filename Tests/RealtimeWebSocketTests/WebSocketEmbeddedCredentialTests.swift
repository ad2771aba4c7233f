import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestServer
import RealtimeTestSupport
@testable import RealtimeWebSocket

/// Credentials in the opening handshake, read byte for byte from what the production
/// connection writes (``EmbeddedWebSocket``): URL userinfo sent as `Authorization: Basic` the
/// way the SSE transport (libcurl) sends it, never in the request target, the `Host` field or
/// an event; the user's own `Authorization` first; across handshake redirects, credentials and
/// the headers marked sensitive stay on their origin. (A `wss` → `ws` redirect needs TLS: it is
/// over a socket in `WebSocketCredentialTests`.)
@Suite(.timeLimit(.minutes(1)), .endsEmbeddedConnections) struct WebSocketEmbeddedCredentialTests {
    /// The upgrade request the connection wrote on its current stream, once connected.
    struct Upgrade {
        let target: String
        let fields: [(name: String, value: String)]

        func values(_ name: String) -> [String] {
            fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        subscript(_ name: String) -> String? { values(name).first }
    }

    static func upgrade(_ ws: EmbeddedWebSocket) throws -> Upgrade {
        ws.stream.acceptConnection()
        ws.loop.run()
        let text = String(decoding: ws.stream.takeWritten(), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let requestLine = try #require(lines.first).split(separator: " ")
        #expect(requestLine.first == "GET" && requestLine.count == 3, "\(lines.first ?? "")")
        let fields = lines.dropFirst().prefix { !$0.isEmpty }.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Upgrade(target: requestLine.count > 1 ? String(requestLine[1]) : "", fields: fields)
    }

    /// Answers the current handshake with a `status` redirect to `location`; the connection
    /// then opens another stream.
    static func redirect(_ ws: EmbeddedWebSocket, _ status: Int, to location: String) {
        ws.stream.feed(Array("HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n".utf8))
        ws.loop.run()
    }

    static func basic(_ plain: String) -> String { "Basic " + Data(plain.utf8).base64EncodedString() }

    /// Percent-decoded like libcurl: `us%65r` is `user`, `p%40ss` is `p@ss`.
    @Test func urlCredentialsAreSentAsBasicAuthorizationAndNeverShown() throws {
        let ws = EmbeddedWebSocket(url: "ws://us%65r:p%40ss@example.test/ws?room=1")
        ws.start()
        let upgrade = try Self.upgrade(ws)
        #expect(upgrade.values("Authorization") == [Self.basic("user:p@ss")])
        #expect(upgrade.target == "/ws?room=1", "userinfo is not part of the request target")
        #expect(upgrade["Host"] == "example.test")
        let accept = TestServer.webSocketAccept(forKey: try #require(upgrade["Sec-WebSocket-Key"]))
        ws.stream.feed(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8))
        let info = try #require(ws.events().lazy.compactMap { if case .opened(let info) = $0 { info } else { nil } }.first)
        #expect(info.url.user == nil && info.url.password == nil, "no credentials in the opened event")
        #expect(!String(describing: info).contains("p%40ss") && !String(reflecting: info).contains("p@ss"))
    }

    @Test func aUserWithoutPasswordHasAnEmptyOneAndTheUsersOwnAuthorizationWins() throws {
        let bare = EmbeddedWebSocket(url: "ws://alice@example.test/ws")
        bare.start()
        #expect(try Self.upgrade(bare).values("Authorization") == [Self.basic("alice:")])
        let explicit = EmbeddedWebSocket(url: "ws://alice:pw@example.test/ws") { $0.headers = ["Authorization": "Bearer t0ken"] }
        explicit.start()
        #expect(try Self.upgrade(explicit).values("Authorization") == ["Bearer t0ken"], "as with libcurl")
    }

    /// URL credentials follow a same-origin redirect and stay behind on another origin, with
    /// every header the user marked sensitive; the others go everywhere.
    @Test(arguments: [
        ("ws://other.test/ws", false), ("ws://example.test:8080/ws", false), ("/ws?same=1", true), ("WS://EXAMPLE.TEST:80/ws", true),
    ])
    func urlCredentialsAndMarkedHeadersStayOnTheirOrigin(location: String, sameOrigin: Bool) throws {
        let ws = EmbeddedWebSocket(url: "ws://u:pw@example.test/away") {
            $0.headers = ["X-Tenant": "t1", "X-Trace": "abc"]
            $0.sensitiveHeaderNames = ["x-tenant"]
        }
        ws.start()
        let first = try Self.upgrade(ws)
        #expect(first["Authorization"] == Self.basic("u:pw") && first["X-Tenant"] == "t1")
        Self.redirect(ws, 307, to: location)
        #expect(ws.streams.count == 2, "the redirect opens another connection")
        let next = try Self.upgrade(ws)
        #expect(next["Authorization"] == (sameOrigin ? Self.basic("u:pw") : nil))
        #expect(next["X-Tenant"] == (sameOrigin ? "t1" : nil))
        #expect(next["X-Trace"] == "abc")
    }

    /// The credential table through handshake redirects: every credential name, built in or
    /// configured, reaches the first origin and a same-origin redirect, and not another
    /// origin; the harmless names go everywhere.
    @Test func theCredentialTableThroughHandshakeRedirects() throws {
        let table = CredentialHeaderTable.self
        var seen: [String: HTTPHeaders] = [:]
        for (name, location) in [("away", "ws://other.test/ws?away=1"), ("near", "/ws?near=1")] {
            let ws = EmbeddedWebSocket(url: "ws://example.test/\(name)") {
                $0.headers = table.headers
                $0.sensitiveHeaderNames = table.configured
            }
            ws.start()
            let first = try Self.upgrade(ws)
            seen["first"] = HTTPHeaders(first.fields.map { ($0.name, $0.value) })
            Self.redirect(ws, 302, to: location)
            seen[name] = HTTPHeaders(try Self.upgrade(ws).fields.map { ($0.name, $0.value) })
        }
        let violations = table.violations(
            first: try #require(seen["first"]), sameOrigin: try #require(seen["near"]), otherOrigin: try #require(seen["away"]))
        #expect(violations.isEmpty, "\(violations)")
    }
}

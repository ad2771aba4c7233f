#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// A hostile WebSocket redirect through ``RealtimeClient`` over sockets: credentials stay on
/// their origin across two real servers. Bad frames, bad handshakes and a frozen server are on
/// the embedded stack (`EmbeddedHostileWebSocketTests`). The map of every hostile case to its
/// test is in `HostileInputMapTests.swift`.
@Suite(.timeLimit(.minutes(1)))
struct HostileWebSocketTests {
    @Test("a cross-origin redirect drops X-Authorization, X-Auth-Key, Ocp-Apim-Subscription-Key and Cookie")
    func vendorCredentialsStayOnTheirOrigin() async throws {
        let server = TestServer(), other = TestServer()
        try server.start()
        try other.start()
        defer {
            server.stop()
            other.stop()
        }
        let elsewhere = other.wsURL("/ws?mode=send&count=1&close=1000").absoluteString
        server.setHandler(path: "/away") { writer in
            try writer.writeHead(status: 307, headers: ["Location": elsewhere], framing: .contentLength(0))
        }
        let run = try await HostileRun.client(server.wsURL("/away")) {
            $0.headers.add(name: "X-Authorization", value: "SECRET-x")
            $0.headers.add(name: "X-Auth-Key", value: "SECRET-k")
            $0.headers.add(name: "Ocp-Apim-Subscription-Key", value: "SECRET-o")
            $0.headers.add(name: "X-Trace", value: "kept")
            $0.reconnect = .finite
        }
        #expect(run.messages.map(\.text) == ["message 1"], "\(run.summary)")
        let first = try #require(server.requests(path: "/away").first)
        #expect(first.headers["Ocp-Apim-Subscription-Key"] == "SECRET-o")
        let away = try #require(other.requests(path: "/ws").first)
        for name in ["Authorization", "Cookie", "X-Api-Key", "X-Authorization", "X-Auth-Key", "Ocp-Apim-Subscription-Key"] {
            #expect(away.headers[name] == nil, "\(name) went to another origin")
        }
        #expect(away.headers["X-Trace"] == "kept")
        run.expectNoSecret()
    }
}
#endif

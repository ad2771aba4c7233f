#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// RealtimeClient + the real WebSocket transport against the in-package server on loopback,
/// end to end: a send and its echo through a real socket. The client's rules (closes and their
/// codes, retries, refused upgrades, heartbeats, the handshake stage) are checked on the
/// embedded stack (`EmbeddedClientWebSocketTests`).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientWebSocketIntegrationTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func client(_ path: String, _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws
        -> RealtimeClient
    {
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.connectTimeout = .seconds(5)
        c.idleTimeout = .seconds(5)
        configure(&c)
        return try RealtimeClient(url: server.wsURL(path), configuration: c)
    }

    @Test func sendsAndReceivesEchoes() async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=echo")
        var it = c.events.makeAsyncIterator()
        #expect(await it.next()?.short == "open(1)")
        try await c.send(.text("hello"))
        try await c.send(.binary([0, 1, 2, 255]))
        #expect(await it.next()?.short == "event(hello)")
        if case .event(let m) = await it.next() {
            #expect(m.content == .binary([0, 1, 2, 255]))
        } else {
            Issue.record("expected the binary echo")
        }
        c.close()
        #expect(await it.next() == nil)
        await #expect(throws: RealtimeError.cancelled, "the client was closed") { try await c.send(.text("late")) }
    }
}
#endif

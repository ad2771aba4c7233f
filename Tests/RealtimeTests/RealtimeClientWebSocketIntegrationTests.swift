#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// RealtimeClient + the real WebSocket transport against the in-package server on loopback:
/// the same event stream and reconnect rules as SSE, plus sending and heartbeats.
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

    private func collect(_ client: RealtimeClient, limit: Int = 1000) async -> [ClientEvent] {
        var out: [ClientEvent] = []
        for await e in client.events {
            out.append(e)
            if out.count >= limit { break }
        }
        return out
    }

    @Test func receivesMessagesThenAFinalClose() async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=send&count=3&close=1000") { $0.reconnect = .finite }
        let events = await collect(c)
        #expect(events.map(\.short) == ["open(1)", "event(message 1)", "event(message 2)", "event(message 3)", "closed(final)"])
        #expect(events.last?.closeEvent?.code == 1000)
        #expect(events.last?.closeEvent?.clean == true)
        if case .open(let info) = events.first {
            #expect(info.transport == .webSocket && info.status == 101)
        }
    }

    @Test func aServerCloseReconnectsByDefault() async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=send&count=1&close=1001&reason=redeploy")
        let events = await collect(c, limit: 5)
        // 1001 (going away) is a clean close, not an error; the client reconnects.
        #expect(events.map(\.short) == [
            "open(1)", "event(message 1)", "closed(reconnect)", "open(2)", "event(message 1)",
        ])
        let close = try #require(events.at(2)?.closeEvent)
        #expect(close.code == 1001 && close.reason == "redeploy" && close.clean)
    }

    /// 1012 (service restart): an orderly close like 1001. The code is echoed (RFC 6455
    /// §5.5.1), `closed` carries it with the reason, and the client reconnects.
    @Test func serviceRestartIsAnOrderlyClose() async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=send&count=1&close=1012&reason=restarting")
        let events = await collect(c, limit: 4)
        #expect(events.map(\.short) == ["open(1)", "event(message 1)", "closed(reconnect)", "open(2)"])
        let close = try #require(events.at(2)?.closeEvent)
        #expect(close.code == 1012 && close.reason == "restarting" && close.clean)
        #expect(server.webSocketSessions.first?.closeCode == 1012, "the close frame sent back echoes the code")
        #expect(server.webSocketSessions.first?.protocolErrorCode == nil)
    }

    /// 1013 (try again later) and 1014 (bad gateway): echoed, reported in `closed` with the
    /// code and reason, and retried with backoff like a 503, even when the policy does not
    /// retry protocol violations (these are none).
    @Test(arguments: [1013, 1014])
    func retryLaterCodesReconnectWithBackoff(code: Int) async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=send&count=1&close=\(code)&reason=later") {
            $0.reconnect.retriesAfterProtocolViolation = false
        }
        let events = await collect(c, limit: 5)
        #expect(events.map(\.short) == [
            "open(1)", "event(message 1)", "error(remote_closed,retry)", "closed(reconnect)", "open(2)",
        ])
        let error = try #require(events.at(2)?.errorEvent)
        #expect(error.retryIn != nil)
        #expect(error.error.closeCode == UInt16(code))
        #expect(error.error.detail?.contains("\(code)") == true)
        let close = try #require(events.at(3)?.closeEvent)
        #expect(close.code == UInt16(code) && close.reason == "later" && close.clean)
        #expect(server.webSocketSessions.first?.closeCode == UInt16(code), "the close frame sent back echoes the code")
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

    @Test func refusedUpgradeStopsAndServerErrorRetries() async throws {
        defer { server.stop() }
        let refused = await collect(try client("/ws?refuse=403"))
        #expect(refused.count == 1)
        #expect(refused.first?.errorEvent?.willRetry == false)
        #expect(refused.first?.errorEvent?.error.status == 403)

        let unavailable = await collect(try client("/ws?refuse=503"), limit: 2)
        #expect(unavailable.map { $0.errorEvent?.willRetry } == [true, true])
    }

    @Test func badAcceptKeyStops() async throws {
        defer { server.stop() }
        let events = await collect(try client("/ws?bad_accept=1"))
        #expect(events.count == 1)
        #expect(events.first?.errorEvent?.willRetry == false)
        #expect(events.first?.errorEvent?.error.code == .handshake)
    }

    @Test func droppedMidFrameIsRetriedWithoutAPartialMessage() async throws {
        defer { server.stop() }
        let events = await collect(try client("/ws?drop_mid_frame=1"), limit: 4)
        #expect(!events.contains { if case .event = $0 { return true } else { return false } })
        #expect(events.prefix(3).map(\.short).first == "open(1)")
        #expect(events.compactMap(\.errorEvent).first?.willRetry == true)
    }

    @Test func missedPongsDeclareTheConnectionDead() async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=echo&ignore_pings=1") {
            $0.heartbeat = .ping(every: .milliseconds(50), missedLimit: 1)
            $0.reconnect = .limited(maxAttempts: 1)
        }
        let events = await collect(c)
        #expect(events.first?.short == "open(1)")
        let error = try #require(events.compactMap(\.errorEvent).first)
        #expect(error.error.code == .retriesExhausted)
        #expect(error.error.detail?.contains("heartbeat_timeout") == true)
    }

    @Test func applicationHeartbeatRepliesAreHidden() async throws {
        defer { server.stop() }
        let c = try client("/ws?mode=echo&reply_to=hb&reply=hb-ok") {
            $0.heartbeat = .application(every: .milliseconds(20), missedLimit: 2, .text(ping: "hb", pong: "hb-ok"))
        }
        var it = c.events.makeAsyncIterator()
        #expect(await it.next()?.short == "open(1)")
        // Once the server has answered three heartbeats, prove the stream only carries real
        // messages (the answers left the server before the echo of "real").
        let answered = await eventually { (server.webSocketSessions.first?.textMessages.filter { $0 == "hb" }.count ?? 0) >= 3 }
        #expect(answered, "three heartbeats reached the server")
        try await c.send(.text("real"))
        #expect(await it.next()?.short == "event(real)")
        c.close()
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `RealtimeClient` over the production WebSocket connection on the embedded stack (one manual
/// loop for the client's timers and the transport's, an in-memory byte stream the test plays
/// the server on): server closes and their codes, retries, sends and their echo, refused and
/// broken upgrades, a frame cut in half, heartbeats through the client, the handshake stage.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketTests {
    static let url = "ws://peer.test/ws"

    /// The client, its recorder and the first connection's server, upgraded.
    static func opened(
        subprotocol: String? = nil, _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) async throws -> (EmbeddedClient, EventRecorder, EmbeddedWebSocketServer) {
        let t = try EmbeddedClient(url, configure: configure)
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let server = try #require(t.webSocket(0))
        server.accept(subprotocol: subprotocol)
        return (t, rec, server)
    }

    @Test func receivesMessagesThenAFinalClose() async throws {
        let (t, rec, server) = try await Self.opened { $0.reconnect = .finite }
        for n in 1...3 { server.sendText("message \(n)") }
        server.close(code: 1000)
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(message 1) event(message 2) event(message 3) closed(final)")
        #expect(rec.events.last?.closeEvent?.code == 1000 && rec.events.last?.closeEvent?.clean == true)
        if case .open(let info) = rec.events.first { #expect(info.transport == .webSocket && info.status == 101) }
        #expect(server.closeFrame?.code == 1000, "the close is echoed")
        #expect(t.loop.pendingTimerCount == 0)
    }

    /// A WebSocket upgrade is a GET whatever `method` says (a configuration shared with an
    /// SSE client, say), so a cut connection is reconnected, not refused as a request that
    /// cannot be repeated.
    @Test func aPostMethodDoesNotStopAWebSocketFromReconnecting() async throws {
        let (t, rec, first) = try await Self.opened { $0.method = "POST" }
        defer { t.client.close() }
        #expect(first.upgradeRequest?.hasPrefix("GET /ws HTTP/1.1\r\n") == true)
        first.sendText("a")
        first.reset()
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(a) error(network,retry) closed(reconnect)")
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        #expect(second.upgradeRequest?.hasPrefix("GET /ws HTTP/1.1\r\n") == true)
        await rec.waitFor(5)
        #expect(rec.events.last?.short == "open(2)")
    }

    /// 1001 (going away) and 1012 (service restart) are orderly closes: echoed, reported in
    /// `closed` with the reason, and followed by a reconnect after the backoff.
    @Test(arguments: [UInt16(1001), 1012])
    func anOrderlyServerCloseReconnects(code: UInt16) async throws {
        let (t, rec, server) = try await Self.opened()
        server.sendText("message 1")
        server.close(code: code, reason: "redeploy")
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) event(message 1) closed(reconnect)")
        let close = try #require(rec.events.at(2)?.closeEvent)
        #expect(close.code == code && close.reason == "redeploy" && close.clean)
        #expect(server.closeFrame?.code == code)
        await t.waitOutTheBackoff()
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        try #require(t.webSocket(1)).accept()
        await rec.waitFor(4)
        #expect(rec.events.at(3)?.short == "open(2)")
        t.client.close()
    }

    /// 1013 (try again later) and 1014 (bad gateway): retried with backoff like a 503, even
    /// when the policy does not retry protocol violations (these are none).
    @Test(arguments: [UInt16(1013), 1014])
    func retryLaterCodesReconnectWithBackoff(code: UInt16) async throws {
        let (t, rec, server) = try await Self.opened { $0.reconnect.retriesAfterProtocolViolation = false }
        server.sendText("message 1")
        server.close(code: code, reason: "later")
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(message 1) error(remote_closed,retry) closed(reconnect)")
        let error = try #require(rec.events.at(2)?.errorEvent)
        #expect(error.retryIn == .seconds(1) && error.error.closeCode == code)
        let close = try #require(rec.events.at(3)?.closeEvent)
        #expect(close.code == code && close.reason == "later" && close.clean)
        t.client.close()
    }

    /// The subprotocols are offered in order in `Sec-WebSocket-Protocol`, and the one the
    /// server picked is the open's `ConnectionInfo.subprotocol`.
    @Test func theSubprotocolTheServerPickedIsReported() async throws {
        let (t, rec, server) = try await Self.opened(subprotocol: "v1.chat") { $0.subprotocols = ["v2.chat", "v1.chat"] }
        defer { t.client.close() }
        #expect(server.upgradeRequest?.contains("\r\nSec-WebSocket-Protocol: v2.chat, v1.chat\r\n") == true)
        await rec.waitFor(1)
        guard case .open(let info) = rec.events.first else { Issue.record("no open: \(rec.summary)"); return }
        #expect(info.subprotocol == "v1.chat")
    }

    @Test func sendsAndReceives() async throws {
        let (t, rec, server) = try await Self.opened()
        await rec.waitFor(1)
        try await t.client.send(.text("hello"))
        try await t.client.send(.binary([0, 1, 2, 255]))
        t.run()
        #expect(server.texts == ["hello"])
        server.sendBinary([0, 1, 2, 255])
        await rec.waitFor(2)
        if case .event(let m) = rec.events.at(1) { #expect(m.content == .binary([0, 1, 2, 255])) } else { Issue.record("no binary") }
        t.client.close()
        t.run()
        #expect(server.closeFrame?.code == 1000, "close() sends a normal close")
        await #expect(throws: RealtimeError.cancelled, "the client was closed") { try await t.client.send(.text("late")) }
    }

    @Test func aRefusedUpgradeStopsAndAServerErrorRetries() async throws {
        let refused = try EmbeddedClient(Self.url)
        let rec = EventRecorder(refused.client)
        await refused.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        try #require(refused.webSocket(0)).refuse(status: 403)
        await rec.waitUntilFinished()
        #expect(rec.events.count == 1 && rec.events.first?.errorEvent?.willRetry == false)
        #expect(rec.events.first?.errorEvent?.error.status == 403)

        let unavailable = try EmbeddedClient(Self.url)
        let again = EventRecorder(unavailable.client)
        await unavailable.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        try #require(unavailable.webSocket(0)).refuse(status: 503)
        await again.waitFor(1)
        #expect(again.events.first?.errorEvent?.willRetry == true)
        unavailable.client.close()
    }

    /// A refused upgrade's `Retry-After` paces the next attempt (the backoff's 1 s would be
    /// sooner), and the refusal's excerpt and hint are in its error.
    @Test func aRefusedUpgradesRetryAfterPacesTheNextAttempt() async throws {
        let t = try EmbeddedClient(Self.url)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.acceptTCP()
        first.feed(Array("HTTP/1.1 503 Busy\r\nRetry-After: 7\r\nContent-Length: 4\r\n\r\nbusy".utf8))
        first.eof()
        await rec.waitFor(1)
        let refusal = try #require(rec.events.first?.errorEvent)
        #expect(refusal.willRetry && refusal.retryIn == .seconds(7))
        #expect(refusal.error.status == 503 && refusal.error.retryAfter == .seconds(7))
        #expect(refusal.error.bodyExcerpt == "busy")
        await t.waitForState("the backoff") { $0 == .waitingToRetry(in: .seconds(7)) }
        await t.loop.waitForTimer(dueAt: t.loop.now.advanced(by: .seconds(7)))
        t.advance(by: .seconds(6))
        #expect(t.connectionCount == 1, "not before the server's hint")
        t.advance(by: .seconds(1))
        _ = try await t.webSocketAttempt(2)
    }

    @Test func aBadAcceptKeyStops() async throws {
        let t = try EmbeddedClient(Self.url)
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let server = try #require(t.webSocket(0))
        server.acceptTCP()
        server.feed(Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n").utf8))
        await rec.waitUntilFinished()
        #expect(rec.events.count == 1)
        #expect(rec.events.first?.errorEvent?.willRetry == false && rec.events.first?.errorEvent?.error.code == .handshake)
    }

    @Test func aFrameCutInHalfIsRetriedWithoutAPartialMessage() async throws {
        let (t, rec, server) = try await Self.opened()
        let frame = server.textFrame(String(repeating: "x", count: 200))
        server.feed(Array(frame.prefix(frame.count / 2)))
        server.reset()
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) error(network,retry) closed(reconnect)")
        #expect(rec.events.at(2)?.closeEvent?.code == 1006, "no close frame came")
        t.client.close()
    }

    @Test func missedPongsDeclareTheConnectionDead() async throws {
        let (t, rec, server) = try await Self.opened {
            $0.heartbeat = .ping(every: .seconds(10), missedLimit: 1)
            $0.reconnect = .limited(maxAttempts: 1)
            $0.backoff.resetAfter = .seconds(60)  // 20 s open is not a stable connection here
        }
        server.answersPings = false
        await rec.waitFor(1)
        t.advance(by: .seconds(10))
        #expect(server.pingCount == 1)
        t.advance(by: .seconds(10))
        await rec.waitUntilFinished()
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.code == .retriesExhausted && error.error.detail?.contains("heartbeat_timeout") == true)
        #expect(rec.events.last?.closeEvent?.code == 1006, "the server sent no close frame")
    }

    @Test func applicationHeartbeatRepliesAreHidden() async throws {
        let (t, rec, server) = try await Self.opened {
            $0.heartbeat = .application(every: .seconds(20), missedLimit: 2, .text(ping: "hb", pong: "hb-ok"))
        }
        await rec.waitFor(1)
        for _ in 1...3 {
            t.advance(by: .seconds(20))
            #expect(server.texts.last == "hb")
            server.sendText("hb-ok")
        }
        #expect(server.texts.count == 3, "a heartbeat every 20 s")
        server.sendText("real")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(real)", "the replies are consumed")
        t.client.close()
    }

    /// The handshake stage over the real connection: the hook's sends are frames before
    /// anything else, the ack it awaits is never delivered, the outbox goes out after it.
    @Test func theHandshakeStageOverTheProductionConnection() async throws {
        let initSent = Observed(false)
        let t = try EmbeddedClient(Self.url) {
            $0.sendPolicy = .queue()
            $0.onOpen = { context in
                try await context.send(.text(#"{"type":"connection_init"}"#))
                initSent.update { $0 = true }
                _ = try await context.receive { $0.text == #"{"type":"connection_ack"}"# }
            }
        }
        let rec = EventRecorder(t.client)
        let queued = Task { try await t.client.send(.text("queued")) }
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let server = try #require(t.webSocket(0))
        server.accept()
        await initSent.wait("the hook's first send") { $0 }
        t.run()
        #expect(server.texts == [#"{"type":"connection_init"}"#])
        #expect(t.client.state == .connecting(attempt: 1), "not ready while the hook waits for the ack")
        server.sendText(#"{"type":"connection_ack"}"#)
        try await queued.value
        t.run()
        #expect(server.texts == [#"{"type":"connection_init"}"#, "queued"])
        server.sendText("data")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(data)")
        t.client.close()
    }
}
#endif

#if os(Linux)
/// A resumable WebSocket feed in a few lines: the cursor read from each message
/// (`messageID`), the subscribe of every open carrying it (`OpenContext.cursor`), the server
/// answering from there: across cuts, every value once, in order.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketFeedTests {
    @Test func theSubscribeOfEveryOpenCarriesTheLastProcessedSequence() async throws {
        let t = try EmbeddedClient("ws://peer.test/feed") {
            $0.messageID = { $0.text?.split(separator: ":").first.map(String.init) }
            $0.onOpen = { context in
                try await context.send(.text("subscribe after \(context.cursor ?? "0")"))
            }
        }
        let rec = EventRecorder(t.client)
        var next = 1
        for attempt in 1...4 {
            await t.waitForState("attempt \(attempt)") { $0 == .connecting(attempt: attempt) }
            let server = try #require(t.webSocket(attempt - 1))
            server.accept()
            await rec.waitFor("the open of attempt \(attempt)") { $0.short == "open(\(attempt))" }
            t.run()
            #expect(server.texts == ["subscribe after \(next - 1)"], "the cursor of what was processed")
            for n in next..<(next + 5) { server.sendText("\(n):value") }
            next += 5
            if attempt < 4 {
                server.reset()
                await t.waitOutTheBackoff()
            }
        }
        await rec.waitFor("value 20") { $0.short == "event(20:value)" }
        let values = rec.events.compactMap { if case .event(let m) = $0 { m.id } else { nil } }
        #expect(values == (1...20).map(String.init), "every value once, in order")
        t.client.close()
    }
}
#endif

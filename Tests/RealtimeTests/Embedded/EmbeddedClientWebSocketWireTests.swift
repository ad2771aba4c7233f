#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// What a `RealtimeClient` on a `ws://` URL receives and writes, frame by frame, through the
/// production connection on the embedded stack: fragments, control frames, the upgrade
/// request, a violation after messages.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketFrameTests {
    /// Opens a client on the first attempt's server and waits for its `open`.
    static func opened(
        _ configure: @escaping (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) async throws -> (EmbeddedClient, EventRecorder, EmbeddedWebSocketServer) {
        try await EmbeddedClientCloseCodeTests.opened(configure)
    }

    /// A fragmented text message is delivered once, whole, with a code point split across
    /// fragments and a ping between them (control frames may be interleaved, RFC 6455 §5.4).
    @Test func aFragmentedTextMessageIsDeliveredWhole() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.feed([0x01, 0x04] + Array("caf".utf8) + [0xC3])
        server.sendPing([7])
        server.feed([0x00, 0x02, 0xA9, 0x20])
        server.feed([0x80, 0x06] + Array("crème".utf8))
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(café crème)")
        server.read()
        #expect(server.received.contains(.pong([7])), "the ping between the fragments is answered")
    }

    /// A fragmented binary message is delivered as one `.binary` content, its bytes in order.
    @Test func aFragmentedBinaryMessageIsDeliveredWhole() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.feed([0x02, 0x02, 0, 1])
        server.feed([0x00, 0x01, 2])
        server.feed([0x80, 0x02, 254, 255])
        await rec.waitFor(2)
        guard case .event(let message) = rec.events.at(1) else { Issue.record("no message: \(rec.summary)"); return }
        #expect(message.content == .binary([0, 1, 2, 254, 255]))
    }

    /// A server ping is answered with a pong carrying its payload (§5.5.2) and never reaches
    /// the consumer.
    @Test func aServerPingIsAnsweredWithItsPayloadAndNotDelivered() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.sendPing([1, 2, 3])
        server.sendText("after")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(after)")
        server.read()
        #expect(server.received == [.pong([1, 2, 3])])
    }

    /// `send(.ping(payload))` writes a ping control frame with that payload; the server's pong
    /// is not delivered.
    @Test func sendPingWritesAPingFrame() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        try await t.client.send(.ping([9, 8, 7]))
        server.read()
        #expect(server.received == [.ping([9, 8, 7])])
        server.sendText("after")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(after)", "the pong is not a message")
    }

    /// An invalid UTF-8 byte fails the connection at once, before the message's last fragment:
    /// `invalid_utf8`, closed with 1007.
    @Test func anInvalidByteInAFirstFragmentFailsAtOnceWith1007() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.answersClose = false
        server.feed([0x01, 0x02, 0x61, 0xFF])
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.code == .invalidUTF8 && error.error.closeCode == 1007, "\(error.error)")
        #expect(server.closeFrame?.code == 1007)
    }

    /// Messages before a protocol violation are delivered, and the close frame waits until
    /// 250 ms after the last of them, so what the application sends in answer goes out first.
    @Test func anAnswerToTheLastMessageBeforeAViolationGoesOutBeforeTheClose() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.answersClose = false
        server.feed(server.textFrame("last") + [0x83, 0x00])
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(last)")
        try await t.client.send(.text("echo: last"))
        let due = ManualLoop.Instant(offset: .milliseconds(250))
        await t.loop.waitForTimer(dueAt: due)
        t.advance(by: .milliseconds(249))
        #expect(server.closeFrame == nil, "not before 250 ms")
        t.advance(by: .milliseconds(1))
        #expect(server.texts == ["echo: last"])
        #expect(server.closeFrame?.code == 1002)
        await rec.waitFor("the error") { $0.errorEvent != nil }
        #expect(rec.events.compactMap(\.errorEvent).first?.error.code == .protocolViolation)
    }

    /// The upgrade is a GET with `Upgrade`, `Connection`, version 13, the configured headers,
    /// and a fresh random 16-byte `Sec-WebSocket-Key` on every attempt (RFC 6455 §4.1).
    @Test func theUpgradeRequestCarriesTheHeadersAndAFreshKeyPerAttempt() async throws {
        let (t, _, first) = try await Self.opened { $0.headers = ["X-Tenant": "acme"] }
        defer { t.client.close() }
        first.reset()
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        var keys: [String] = []
        for server in [first, second] {
            let request = try #require(server.upgradeRequest)
            for line in ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13", "X-Tenant: acme"] {
                #expect(request.contains("\r\n\(line)\r\n"), "\(line) in \(request)")
            }
            let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }?.dropFirst(19)
            let bytes = try #require(key.flatMap { Data(base64Encoded: String($0)) })
            #expect(bytes.count == 16)
            keys.append(String(key ?? ""))
        }
        #expect(keys[0] != keys[1], "a fresh key per attempt")
    }
}
#endif

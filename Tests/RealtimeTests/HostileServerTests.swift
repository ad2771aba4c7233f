#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Hostile WebSocket servers on the embedded stack, cases not held elsewhere: bytes glued to
/// the 101, a close frame the server never follows with its TCP end, compressed messages
/// that inflate past the limit over several fragments or to invalid UTF-8, a full-size ping
/// inside a fragmented message.
@Suite(.timeLimit(.minutes(1))) struct HostileServerTests {
    static func compressing(_ configure: @escaping (inout RealtimeClient.Configuration) -> Void = { _ in })
        async throws -> (EmbeddedClient, EventRecorder, EmbeddedWebSocketServer) {
        let t = try EmbeddedClient("ws://peer.test/ws") {
            $0.webSocket.compression = .default
            configure(&$0)
        }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept(extensions: "permessage-deflate")
        await rec.waitFor(1)
        return (t, rec, server)
    }

    /// A text frame and a close frame in the same read as the 101's head: the message is
    /// delivered, then the orderly close (RFC 6455 §4.1: frames may follow the head at once).
    @Test func framesGluedToThe101AreDelivered() async throws {
        let t = try EmbeddedClient("ws://peer.test/ws")
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let server = try await t.webSocketAttempt(1)
        server.acceptTCP()
        let request = try #require(server.upgradeRequest)
        let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
            .map { $0.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces) } ?? ""
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(TestServer.webSocketAccept(forKey: key))\r\n\r\n"
        server.feed(Array(head.utf8) + server.textFrame("glued") + [0x88, 0x02, 0x03, 0xE8])
        await rec.waitFor("the close") { $0.closeEvent != nil }
        #expect(rec.summary.hasPrefix("open(1) event(glued) closed("), "\(rec.summary)")
        #expect(server.closeFrame?.code == 1000, "the close is echoed")
    }

    /// A server that sends its close frame and never closes TCP: the client answers, and
    /// ends the attempt by the close timeout at the latest, reporting the server's code, then
    /// reconnects at once (1000 is an orderly end).
    @Test func aCloseFrameWithoutTheTCPEndEndsByTheCloseTimeout() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketTests.opened { $0.webSocket.closeTimeout = .seconds(3) }
        defer { t.client.close() }
        await rec.waitFor(1)
        server.feed([0x88, 0x02, 0x03, 0xE8])
        #expect(server.closeFrame?.code == 1000, "answered at once")
        t.advance(by: .seconds(3))
        await rec.waitFor("the close") { $0.closeEvent != nil }
        let close = try #require(rec.events.compactMap(\.closeEvent).first)
        #expect(close.code == 1000, "\(close)")
        #expect(server.isClosed, "the client closed TCP itself")
        #expect(rec.events.compactMap(\.errorEvent).isEmpty, "\(rec.summary)")
        #expect(t.loop.now <= ManualLoop.Instant(offset: .seconds(3)))
        _ = try await t.webSocketAttempt(2)
    }

    /// A compressed message whose fragments each inflate to 600 bytes, against a 1000-byte
    /// message limit: `message_too_large` with 1009 once the sum crosses it, not retried.
    @Test func aFragmentedDecompressionBombIsBoundedByTheMessageLimit() async throws {
        let (t, rec, server) = try await Self.compressing { $0.webSocket.maxMessageSize = 1000 }
        server.answersClose = false
        let first: [UInt8] = [0x4A, 0x4C, 0x1C, 0x05, 0xA3, 0x80, 0xFA, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF]
        let next: [UInt8] = [0x1A, 0x05, 0xA3, 0x80, 0x16, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF]
        server.feed([0x41, UInt8(first.count)] + first)
        server.feed([0x00, UInt8(next.count)] + next)
        server.feed([0x80, UInt8(next.count)] + next)
        await rec.waitUntilFinished()
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .messageTooLarge && error.error.closeCode == 1009, "\(error.error)")
        #expect(!error.willRetry)
        #expect(server.closeFrame?.code == 1009)
        #expect(t.connectionCount == 1)
    }

    /// One small frame inflating to 5000 bytes against a 1000-byte limit.
    @Test func aSingleFrameDecompressionBombIsBoundedByTheMessageLimit() async throws {
        let (t, rec, server) = try await Self.compressing { $0.webSocket.maxMessageSize = 1000 }
        server.answersClose = false
        let bomb: [UInt8] = [
            0xEC, 0xC1, 0x31, 0x01, 0x00, 0x00, 0x00, 0xC2, 0xA0, 0xAE, 0xEB, 0x1F, 0xC2, 0x14, 0x7E, 0x40, 0x01, 0x00, 0x00,
            0x00, 0x00, 0x6F, 0x03,
        ]
        server.feed([0xC2, UInt8(bomb.count)] + bomb)
        await rec.waitUntilFinished()
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .messageTooLarge && error.error.closeCode == 1009, "\(error.error)")
        #expect(t.connectionCount == 1)
    }

    /// A compressed text message that inflates to invalid UTF-8: `invalid_utf8`, 1007.
    @Test func aCompressedTextOfInvalidUTF8Fails1007() async throws {
        let (t, rec, server) = try await Self.compressing()
        defer { t.client.close() }
        server.answersClose = false
        server.feed([0xC1, 0x06, 0xCA, 0xCF, 0xFE, 0xFF, 0x0F, 0x00])
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .invalidUTF8 && error.error.closeCode == 1007, "\(error.error)")
        #expect(server.closeFrame?.code == 1007)
    }

    /// A compressed message that ends its DEFLATE stream (BFINAL), then one that starts a new
    /// stream: both inflate (RFC 7692 §7.2.3.4).
    @Test func aFinalBlockStartsANewStreamForTheNextMessage() async throws {
        let (t, rec, server) = try await Self.compressing()
        defer { t.client.close() }
        let final: [UInt8] = [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
        server.feed([0xC1, UInt8(final.count)] + final)
        server.feed([0xC1, UInt8(final.count)] + final)
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) event(Hello) event(Hello)", "\(rec.summary)")
    }

    /// A 125-byte ping between the fragments of a message: answered with the same payload,
    /// the message whole (RFC 6455 §5.4, §5.5.2).
    @Test func aFullSizePingInsideAFragmentedMessageIsAnswered() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketTests.opened()
        defer { t.client.close() }
        await rec.waitFor(1)
        let payload = (0..<125).map { UInt8($0) }
        server.feed([0x01, 0x02] + Array("ab".utf8))
        server.sendPing(payload)
        server.feed([0x80, 0x02] + Array("cd".utf8))
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(abcd)", "\(rec.summary)")
        #expect(server.received.contains(.pong(payload)), "the 125-byte ping is echoed")
    }

    /// A token in the URL's query (and a redirect whose Location carries another) never
    /// reaches an event's description or a log record, SSE or WebSocket, through a refusal,
    /// an open, an event, a protocol violation and a reset.
    @Test(arguments: ["http", "ws"]) func aQueryTokenNeverReachesAnEventOrALog(scheme: String) async throws {
        let logs = LogCapture()
        let t = try EmbeddedClient("\(scheme)://peer.test/feed?access_token=SECRET-q1&room=7") {
            $0.logHandler = logs
            $0.logLevel = .trace
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        if scheme == "http" {
            let first = try await t.sseAttempt(1)
            first.respond(status: 307, headers: [("Location", "/moved?sig=SECRET-q2")])
            first.finish()
            first.respond(status: 503, headers: [("Content-Type", "text/plain")])
            first.send("busy")
            first.finish()
            await t.waitOutTheBackoff()
            let second = try await t.sseAttempt(2)
            second.respond()
            second.event("one", id: "1")
            await rec.waitFor(3)
            second.send("data: \u{FF}\n\n")
            second.reset()
        } else {
            let first = try await t.webSocketAttempt(1)
            first.refuse(status: 503)
            await t.waitOutTheBackoff()
            let second = try await t.webSocketAttempt(2)
            second.accept()
            second.sendText("one")
            await rec.waitFor(3)
            second.answersClose = false
            second.feed([0x8B, 0x00])
            t.advance(by: .milliseconds(250))  // the window for replies to "one" (Transports.md)
        }
        await t.waitForState("the next backoff") { $0.isWaitingToRetry }
        #expect(rec.events.count >= 4, "\(rec.summary)")
        HostileRun(events: rec.events, times: [], logs: logs.lines, stoppedByItself: true, elapsed: .zero).expectNoSecret()
    }

    /// A 204 at the end of a redirect chain still means "do not reconnect" (WHATWG HTML §9.2:
    /// the status of the final response is what counts).
    @Test func a204AfterARedirectStops() async throws {
        let t = try EmbeddedClient("http://peer.test/stream")
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: 307, headers: [("Location", "/elsewhere")])
        first.finish()
        first.respond(status: 204, headers: [])
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.events.allSatisfy { if case .error(let e) = $0 { !e.willRetry } else { true } }, "\(rec.summary)")
        #expect(t.connectionCount == 1, "\(rec.summary)")
        #expect(first.curl.hops.map(\.url.path) == ["/stream", "/elsewhere"])
    }

    /// Frames after the server's close frame, in the same read: nothing more is delivered and
    /// nothing follows the client's close frame, not even a pong (RFC 6455 §5.5.1, §1.4).
    @Test func framesAfterTheServersCloseAreIgnored() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketTests.opened()
        defer { t.client.close() }
        await rec.waitFor(1)
        server.feed([0x88, 0x02, 0x03, 0xE8] + server.textFrame("late") + [0x89, 0x01, 0x07])
        t.advance(by: .seconds(5))
        await rec.waitFor("the close") { $0.closeEvent != nil }
        #expect(!rec.summary.contains("late"), "\(rec.summary)")
        let afterClose = server.received.drop { if case .close = $0 { false } else { true } }.dropFirst()
        #expect(afterClose.isEmpty, "nothing after the client's close frame: \(server.received)")
        #expect(rec.events.compactMap(\.closeEvent).first?.code == 1000)
    }

    /// A TLS alert after the 101 (the stream was up, the server had accepted the handshake and
    /// the client's certificate): the stream broke, nothing was refused; a network failure,
    /// retried with backoff, never a `tls` stop.
    @Test func aTLSAlertAfterTheUpgradeIsRetried() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketTests.opened()
        defer { t.client.close() }
        await rec.waitFor(1)
        server.stream.fail(RealtimeError(.tls, detail: "handshake failed: tlsv1 alert internal error"))
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first, "\(rec.summary)")
        #expect(error.error.code == .network && error.willRetry, "\(error)")
        #expect(error.error.detail?.contains("tlsv1 alert internal error") == true, "the alert is named: \(error.error)")
        await t.waitOutTheBackoff()
        _ = try await t.webSocketAttempt(2)
    }
}
#endif

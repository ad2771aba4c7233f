#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// What the client does with a WebSocket server's close codes and with the limits and
/// upgrade refusals the Errors article lists, through the production connection on the
/// embedded stack: the code in `closed` and in the error, the code echoed, retry or stop.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientCloseCodeTests {
    static let url = "ws://peer.test/ws"

    /// The client, its recorder and the first connection's server, upgraded.
    static func opened(
        _ configure: @escaping (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) async throws -> (EmbeddedClient, EventRecorder, EmbeddedWebSocketServer) {
        let t = try EmbeddedClient(url, configure: configure)
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        await rec.waitFor(1)
        return (t, rec, server)
    }

    /// A server close with any other valid code (one of RFC 6455 §7.4.1, or 3000–4999 for
    /// libraries and applications) is `remote_closed` with that code, echoed, and retried.
    @Test(arguments: [UInt16(1003), 1008, 3000, 4000, 4999])
    func anErrorCloseCodeIsRemoteClosedAndRetried(code: UInt16) async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.close(code: code, reason: "why")
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) error(remote_closed,retry) closed(reconnect)")
        let error = try #require(rec.events.at(1)?.errorEvent)
        #expect(error.error.closeCode == code && error.retryIn == .seconds(1))
        let close = try #require(rec.events.at(2)?.closeEvent)
        #expect(close.code == code && close.reason == "why" && close.clean)
        #expect(server.closeFrame?.code == code, "echoed (§5.5.1)")
        await t.waitOutTheBackoff()
        _ = try await t.webSocketAttempt(2)
    }

    /// A close code in `ReconnectPolicy.finalCloseCodes` stops the client with
    /// `remote_closed` and the code; a code not in the list is retried.
    @Test(arguments: [(UInt16(4403), true), (4400, false)])
    func aFinalCloseCodeStopsTheClient(code: UInt16, final: Bool) async throws {
        let (t, rec, server) = try await Self.opened { $0.reconnect.finalCloseCodes = [4403] }
        defer { t.client.close() }
        server.close(code: code, reason: "forbidden")
        await rec.waitFor(3)
        let verdict = final ? "stop" : "retry"
        #expect(rec.summary == "open(1) error(remote_closed,\(verdict)) closed(\(final ? "final" : "reconnect"))")
        #expect(rec.events.at(1)?.errorEvent?.error.closeCode == code)
        #expect(rec.events.at(2)?.closeEvent?.code == code)
        if final {
            await rec.waitUntilFinished()
            #expect(t.connectionCount == 1, "no second attempt")
        } else {
            await t.waitOutTheBackoff()
            _ = try await t.webSocketAttempt(2)
        }
    }

    /// A close frame without a code is an orderly end: `closed` reports 1005 with no error,
    /// the echo carries no code (1005 is never sent, §7.4.1), and the client reconnects.
    @Test func aCloseWithoutACodeIsAnOrderlyEndReportedAs1005() async throws {
        let (t, rec, server) = try await Self.opened()
        defer { t.client.close() }
        server.sendText("bye")
        server.feed([0x88, 0x00])
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) event(bye) closed(reconnect)")
        let close = try #require(rec.events.at(2)?.closeEvent)
        #expect(close.code == 1005 && close.clean)
        let echo = try #require(server.closeFrame, "the client answered the close")
        #expect(echo.code == nil)
        await t.waitOutTheBackoff()
        _ = try await t.webSocketAttempt(2)
    }

    /// A message over `maxMessageSize`, even in fragments each within it, closes with 1009
    /// and `message_too_large`; the client stops unless `retriesAfterLimitExceeded`.
    @Test(arguments: [false, true])
    func aMessageOverTheLimitClosesWith1009(retries: Bool) async throws {
        let (t, rec, server) = try await Self.opened {
            $0.webSocket.maxMessageSize = 64
            $0.reconnect.retriesAfterLimitExceeded = retries
        }
        defer { t.client.close() }
        server.answersClose = false
        server.sendText(String(repeating: "a", count: 64))
        await rec.waitFor(2)
        t.advance(by: .milliseconds(250))  // past the window for answers to that message
        let half = [UInt8](repeating: 0x62, count: 40)
        server.feed([0x01, 40] + half + [0x80, 40] + half)  // text, then its final continuation
        await rec.waitFor(4)
        let verdict = retries ? "retry) closed(reconnect)" : "stop) closed(final)"
        #expect(rec.summary == "open(1) event(\(String(repeating: "a", count: 64))) error(message_too_large,\(verdict)")
        #expect(rec.events.at(2)?.errorEvent?.error.closeCode == 1009)
        #expect(rec.events.at(3)?.closeEvent?.code == 1006, "the server sent no close frame")
        #expect(server.closeFrame?.code == 1009)
    }

    /// `webSocket.maxFrameSize` bounds each frame: a frame of the limit is delivered, one byte
    /// more closes with 1009 and `frame_too_large`, and the client stops.
    @Test func aFrameOverMaxFrameSizeClosesWith1009AndStops() async throws {
        let (t, rec, server) = try await Self.opened { $0.webSocket.maxFrameSize = 100 }
        defer { t.client.close() }
        server.answersClose = false
        server.sendBinary([UInt8](repeating: 1, count: 100))
        await rec.waitFor(2)
        t.advance(by: .milliseconds(250))  // past the window for answers to that message
        server.sendBinary([UInt8](repeating: 2, count: 101))
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(?) error(frame_too_large,stop) closed(final)")
        #expect(rec.events.at(2)?.errorEvent?.error.closeCode == 1009)
        #expect(server.closeFrame?.code == 1009)
        #expect(t.connectionCount == 1)
    }

    /// An upgrade refused with 408, 429, a 5xx or a status outside 100…599 is retried with
    /// backoff; another 4xx stops the client. Either is a `handshake` error with the status.
    @Test(arguments: [(408, true), (429, true), (502, true), (600, true), (400, false), (404, false)])
    func aRefusedUpgradeIsRetriedByItsStatus(status: Int, retried: Bool) async throws {
        let t = try EmbeddedClient(Self.url)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        try await t.webSocketAttempt(1).refuse(status: status)
        await rec.waitFor(1)
        let error = try #require(rec.events.first?.errorEvent)
        #expect(error.error.code == .handshake && error.error.status == status, "\(error.error)")
        #expect(error.willRetry == retried)
        try await t.expectNextAttempt(retried, rec)
    }
}
#endif

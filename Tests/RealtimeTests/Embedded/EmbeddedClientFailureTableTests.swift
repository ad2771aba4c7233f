#if os(Linux)
import CCurl
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Every row of the failure-class table (the Errors article) from a real failure on the
/// embedded stack: the server's answer, libcurl's result or the WebSocket peer's frames go
/// through the production connection, which names the error, and the client decides, with
/// its backoff on the loop.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientFailureTableTests {
    /// A failure of the first attempt and the error code the client reports for it.
    enum Failure: String, CaseIterable, Sendable, CustomTestStringConvertible {
        // Retried after the backoff.
        case reset, nameNotResolved, connectTimedOut, silentPastTheIdleTimeout
        case status500, status503, status429, status408
        case closeFrame1011, noPongs, reservedBits
        // Final.
        case status400, status403, status404, textPlain, certificateRefused, tooManyRedirects, eventTooLarge, wrongAcceptKey

        var testDescription: String { rawValue }

        var url: String {
            switch self {
            case .closeFrame1011, .noPongs, .reservedBits, .wrongAcceptKey: "ws://peer.test/ws"
            default: "http://peer.test/stream"
            }
        }

        var code: RealtimeError.Code {
            switch self {
            case .reset: .network
            case .nameNotResolved: .dnsFailure
            case .connectTimedOut: .connectTimeout
            case .silentPastTheIdleTimeout: .idleTimeout
            case .status500, .status503, .status429, .status408, .status400, .status403, .status404: .httpStatus
            case .closeFrame1011: .remoteClosed
            case .noPongs: .heartbeatTimeout
            case .reservedBits: .protocolViolation
            case .textPlain: .invalidContentType
            case .certificateRefused: .tls
            case .tooManyRedirects: .redirect
            case .eventTooLarge: .eventTooLarge
            case .wrongAcceptKey: .handshake
            }
        }

        static let retried: [Failure] = [
            .reset, .nameNotResolved, .connectTimedOut, .silentPastTheIdleTimeout, .status500, .status503, .status429,
            .status408, .closeFrame1011, .noPongs, .reservedBits,
        ]
        static let final: [Failure] = allCases.filter { !retried.contains($0) }

        func configure(_ c: inout RealtimeClient.Configuration) {
            c.backoff.maximumServerDelay = .seconds(1)  // a status's Retry-After never lengthens the table's 1 s
            switch self {
            case .silentPastTheIdleTimeout: c.idleTimeout = .seconds(30)
            case .noPongs: c.heartbeat = .ping(every: .seconds(10), missedLimit: 1)
            case .eventTooLarge: c.sse.limits = SSEParser.Limits(maxEventSize: 100)
            default: break
            }
        }

        /// Plays the failure on attempt 1.
        func play(_ t: EmbeddedClient) async throws {
            if url.hasPrefix("ws") { return try await playWebSocket(t) }
            let server = try await t.sseAttempt(1)
            switch self {
            case .nameNotResolved: return server.failBeforeRequest(CURLE_COULDNT_RESOLVE_HOST)
            case .connectTimedOut: return server.failBeforeRequest(CURLE_OPERATION_TIMEDOUT)
            case .certificateRefused: return server.failBeforeRequest(CURLE_PEER_FAILED_VERIFICATION)
            case .tooManyRedirects: return server.complete(CURLE_TOO_MANY_REDIRECTS)
            case .status500, .status503, .status429, .status408, .status400, .status403, .status404:
                return EmbeddedClientPolicyTests.answer(server, Int(rawValue.dropFirst("status".count))!, retryAfter: "1")
            case .textPlain: return EmbeddedClientPolicyTests.answer(server, 200)
            default: break
            }
            server.respond()
            switch self {
            case .reset: server.reset()
            case .silentPastTheIdleTimeout: t.advance(by: .seconds(30))
            case .eventTooLarge:  // two lines within the line limit (106), 121 bytes of data
                server.event(String(repeating: "x", count: 60) + "\n" + String(repeating: "x", count: 60))
            default: Issue.record("\(self) is not an SSE failure")
            }
        }

        private func playWebSocket(_ t: EmbeddedClient) async throws {
            let server = try await t.webSocketAttempt(1)
            if self == .wrongAcceptKey {
                server.acceptTCP()
                return server.feed(Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n").utf8))
            }
            server.accept()
            switch self {
            case .closeFrame1011: server.close(code: 1011)
            case .reservedBits: server.feed([0xC1, 0x01, 0x41])  // FIN, RSV1 (no extension agreed), text "A"
            case .noPongs:
                server.answersPings = false
                t.advance(by: .seconds(10))
                #expect(server.pingCount == 1)
                t.advance(by: .seconds(10))
            default: Issue.record("\(self) is not a WebSocket failure")
            }
        }
    }

    @Test(arguments: Failure.retried)
    func retriedAfterTheBackoff(_ failure: Failure) async throws {
        let t = try EmbeddedClient(failure.url, configure: failure.configure)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        try await failure.play(t)
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.code == failure.code, "\(error.error)")
        #expect(error.willRetry && error.retryIn == .seconds(1) && error.attempt == 1)
        await t.waitForTheBackoff()
        t.advance(by: .milliseconds(999))
        #expect(t.connectionCount == 1, "not before the backoff")
        t.advance(by: .milliseconds(1))
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        #expect(t.connectionCount == 2)
    }

    @Test(arguments: Failure.final)
    func stopsWithAClearError(_ failure: Failure) async throws {
        let t = try EmbeddedClient(failure.url, configure: failure.configure)
        let rec = EventRecorder(t.client)
        try await failure.play(t)
        await rec.waitUntilFinished()
        let errors = rec.events.compactMap(\.errorEvent)
        #expect(errors.map(\.error.code) == [failure.code], "\(rec.summary)")
        #expect(errors.first?.willRetry == false && errors.first?.retryIn == nil)
        #expect(t.connectionCount == 1)
        t.run()
        #expect(t.loop.pendingTimerCount == 0, "no backoff armed")
    }

    @Test func aCleanEndReconnectsWithTheCursor() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        #expect(first.request.lastEventID == nil)
        first.event("a", id: "1")
        first.finish()
        let events = await rec.waitFor(3)
        #expect(events.map(\.short) == ["open(1)", "event(a)", "closed(reconnect)"])
        #expect(events.at(2)?.closeEvent?.clean == true)
        await t.waitOutTheBackoff()
        #expect(try await t.sseAttempt(2).request.lastEventID == "1")
    }

    @Test func aFiniteStreamStopsAfterACleanEnd() async throws {
        let t = try EmbeddedClient { $0.reconnect = .finite }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("done")
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(done) closed(final)")
        #expect(t.connectionCount == 1)
    }

    @Test func aProtocolViolationStopsWhenThePolicySaysSo() async throws {
        let t = try EmbeddedClient("ws://peer.test/ws") { $0.reconnect.retriesAfterProtocolViolation = false }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        server.feed([0xC1, 0x01, 0x41])
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) error(protocol_violation,stop) closed(final)")
        #expect(server.closeFrame?.code == 1002, "the client says why (RFC 6455 §7.4.1)")
    }
}
#endif

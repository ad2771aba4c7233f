#if os(Linux)
import CCurl
import Glibc
@_spi(Transport) import RealtimeCore
import RealtimeTesting
import RealtimeTestSupport
@testable import RealtimeSSE
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The production SSE connection driven on the embedded loop: the test plays libcurl by
/// calling the glue's header, write, pre-request and completion callbacks, and moves time by
/// hand, so every deadline is hit exactly, never raced.
@Suite("SSEConnection on the embedded loop", .timeLimit(.minutes(1)), .endsEmbeddedConnections)
struct SSEConnectionEmbeddedTests {
    static func ids(_ events: [TransportEvent]) -> [String] {
        events.compactMap { if case .message(let m) = $0 { return m.id } else { return nil } }
    }

    // MARK: - Opening and delivery

    @Test func aStreamOpensDeliversInOrderAndEndsCleanly() {
        let sse = EmbeddedSSE()
        let info = sse.open()
        #expect(info?.status == 200)
        #expect(info?.url.absoluteString == "http://example.test/stream")
        #expect(info?.httpVersion == "1.1")
        #expect(sse.body("id: 1\ndata: a\n\nid: 2\nda") == 23)
        #expect(sse.body("ta: b\n\nretry: 1500\n\n") > 0)
        let events = sse.takeEvents()
        #expect(Self.ids(events) == ["1", "2"])
        #expect(events.contains { if case .retryHint(.milliseconds(1500)) = $0 { return true } else { return false } })
        sse.body("data: cut mid-ev")
        sse.complete()
        let end = sse.takeEvents()
        #expect(Self.ids(end).isEmpty, "an unterminated event is never delivered")
        guard case .ended(let ended)? = end.last else { Issue.record("no end: \(end)"); return }
        #expect(ended.clean)
        #expect(sse.curl.ended)
        #expect(sse.loop.pendingTimerCount == 0)
    }

    @Test func theOpenedURLCarriesNoUserinfo() {
        let sse = EmbeddedSSE(url: "http://user:secret@example.test/stream")
        sse.curl.effectiveURL = URL(string: "http://user:secret@example.test/final")
        let info = sse.open()
        #expect(info?.url.absoluteString == "http://example.test/final")
    }

    @Test func eventsParsedBeforeACloseComeBeforeItsEnd() {
        let sse = EmbeddedSSE()
        sse.open()
        var chunk = Array("id: 7\ndata: last\n\n".utf8)
        sse.loop.onLoop {
            _ = chunk.withUnsafeMutableBytes { sse.connection.value.received($0.baseAddress, $0.count) }
            sse.connection.value.cancel() // before curl returns from its action
        }
        let events = sse.takeEvents()
        #expect(Self.ids(events) == ["7"])
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.error?.code == .cancelled)
    }

    // MARK: - Head verdicts through the glue

    @Test func noContentEndsWithoutOpening() {
        let sse = EmbeddedSSE()
        sse.start()
        sse.head(204, [])
        sse.complete()
        let events = sse.takeEvents()
        #expect(events.count == 1)
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.clean && end.doNotReconnect)
    }

    @Test func anErrorStatusCarriesItsBodyExcerpt() {
        let sse = EmbeddedSSE()
        sse.start()
        sse.requestStarting()
        sse.head(401, [("Content-Type", "application/json")])
        sse.body("{\"error\":\"denied\"}")
        sse.complete()
        let end = sse.ended()
        #expect(end?.error?.code == .httpStatus)
        #expect(end?.error?.status == 401)
        #expect(end?.error?.bodyExcerpt == "{\"error\":\"denied\"}")
    }

    @Test func aJSONBodyIsOneMessageThenAnEndWithoutReconnect() {
        var options = EmbeddedSSE.quietOptions
        options.jsonBodyLimit = 1024
        let sse = EmbeddedSSE(options: options)
        sse.start()
        sse.head(200, [("Content-Type", "application/json")])
        sse.body("{\"ok\":")
        sse.body("true}")
        sse.complete()
        let events = sse.takeEvents()
        #expect(events.count == 3)
        guard case .message(let message) = events[1], case .ended(let end) = events[2] else { Issue.record("\(events)"); return }
        #expect(message.text == "{\"ok\":true}")
        #expect(end.clean && end.doNotReconnect)
    }

    @Test func aParserLimitAbortsWithItsOwnError() {
        var options = EmbeddedSSE.quietOptions
        options.limits.maxLineLength = 64
        let sse = EmbeddedSSE(options: options)
        sse.open()
        #expect(sse.body("data: " + String(repeating: "x", count: 100)) == 0, "the write callback aborts")
        sse.complete(CURLE_WRITE_ERROR)
        let end = sse.ended()
        #expect(end?.error?.code == .lineTooLong, "the parser's error, not curl's write error")
    }

    // MARK: - Redirects

    @Test func aRedirectIsSentOnTheSameTransferOnceItsBodyEnds() {
        let sse = EmbeddedSSE()
        sse.start()
        #expect(sse.head(307, [("Location", "/moved")]) > 0)
        sse.body("gone")
        #expect(sse.curl.hops.count == 1, "followed once the redirect's transfer completes")
        sse.complete()
        #expect(sse.curl.hops.map(\.url.path) == ["/stream", "/moved"])
        sse.head(200)
        #expect(sse.takeEvents().count == 1)
    }

    @Test func oneRedirectTooManyFails() {
        let sse = EmbeddedSSE { $0.maxRedirects = 1 }
        sse.start()
        sse.head(302, [("Location", "/a")])
        sse.complete()
        #expect(sse.head(302, [("Location", "/b")]) == 0, "the header callback aborts")
        sse.complete(CURLE_WRITE_ERROR)
        let end = sse.ended()
        #expect(end?.error?.code == .redirect)
        #expect(end?.requestWasDelivered == true)
        #expect(sse.curl.hops.count == 2)
    }

    @Test func aRedirectCurlRefusesEndsTheAttempt() {
        let sse = EmbeddedSSE()
        sse.start()
        sse.head(308, [("Location", "/a")])
        sse.curl.setupFailure = RealtimeError(.invalidConfiguration, detail: "url: curl 3")
        sse.complete()
        let end = sse.ended()
        #expect(end?.error?.code == .invalidConfiguration)
        #expect(end?.requestWasDelivered == true, "the first request got an answer")
        #expect(sse.loop.pendingTimerCount == 0)
    }

    // MARK: - Start failures

    @Test func aRequestCurlRefusesEndsBeforeAnyTimer() {
        let sse = EmbeddedSSE()
        sse.curl.setupFailure = RealtimeError(.internal, detail: "curl_easy_init failed")
        sse.start()
        let end = sse.ended()
        #expect(end?.error?.code == .internal)
        #expect(end?.requestWasDelivered == false)
        #expect(sse.loop.pendingTimerCount == 0)
    }

    @Test func anInvalidRequestFailsBeforeCurlIsAsked() {
        let sse = EmbeddedSSE { $0.headers.add(name: "X-Bad", value: "a\r\nb") }
        sse.start()
        #expect(sse.ended()?.error?.code == .invalidConfiguration)
        #expect(sse.curl.hops.isEmpty)
    }

    // MARK: - TLS failures

    /// The TLS cause table through the production connection: libcurl (played by the test)
    /// fails the handshake as 7.88 does against a peer that resets, closes, stalls or refuses,
    /// and the attempt ends with the code the client retries or stops on, nothing delivered.
    @Test(arguments: [
        (CURLE_SSL_CONNECT_ERROR, ECONNRESET, "Recv failure: Connection reset by peer", RealtimeError.Code.network),
        (CURLE_SSL_CONNECT_ERROR, 0, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to example.test:443 ", .network),
        (CURLE_SSL_CONNECT_ERROR, 0, "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", .tls),
        (CURLE_SSL_CONNECT_ERROR, 0, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure", .tls),
        (CURLE_OPERATION_TIMEDOUT, 0, "SSL connection timeout", .connectTimeout),
        (CURLE_PEER_FAILED_VERIFICATION, 0, "SSL: no alternative certificate subject name matches target host name 'example.test'", .tls),
        (CURLE_SSL_PINNEDPUBKEYNOTMATCH, 0, "SSL: public key does not match pinned public key", .tls),
    ] as [(CURLcode, Int32, String, RealtimeError.Code)])
    func aFailedHandshakeEndsByItsCause(code: CURLcode, errno: Int32, message: String, expected: RealtimeError.Code) {
        let sse = EmbeddedSSE()
        sse.start()
        sse.curl.osErrno = errno
        sse.curl.errorMessage = message
        sse.complete(code)
        let end = sse.ended()
        #expect(end?.error?.code == expected, "\(String(describing: end?.error))")
        #expect(end?.error?.detail?.hasSuffix("[curl \(code.rawValue)]") == true)
        #expect(end?.requestWasDelivered == false)
        #expect(sse.loop.pendingTimerCount == 0)
    }

    // MARK: - Connect timeout

    @Test func theConnectTimeoutEndsAnAttemptWithoutAHead() {
        let sse = EmbeddedSSE { $0.connectTimeout = .seconds(10) }
        sse.start()
        sse.advance(by: .seconds(10) - .nanoseconds(1))
        #expect(sse.ended() == nil, "alive until the deadline")
        sse.advance(by: .nanoseconds(1))
        let end = sse.ended()
        #expect(end?.error?.code == .connectTimeout)
        #expect(end?.error?.detail == "connect to example.test:80 timed out")
        #expect(end?.requestWasDelivered == false)
        #expect(sse.curl.ended)
        #expect(sse.loop.pendingTimerCount == 0)
    }

    @Test func theConnectTimeoutCoversRedirectsAndEndsAtTheFinalHead() {
        let sse = EmbeddedSSE { $0.connectTimeout = .seconds(10) }
        sse.start()
        sse.requestStarting()
        sse.advance(by: .seconds(6))
        sse.head(302, [("Location", "/next")])
        sse.complete()
        sse.advance(by: .seconds(4))
        let end = sse.ended()
        #expect(end?.error?.code == .connectTimeout)
        #expect(end?.requestWasDelivered == true)
        #expect(end?.error?.detail == "no response head within 10 s")

        let opened = EmbeddedSSE { $0.connectTimeout = .seconds(10) }
        opened.open()
        opened.advance(by: .seconds(60))
        #expect(opened.ended() == nil, "the final head ends the connect timeout")
        #expect(opened.loop.pendingTimerCount == 0)
    }

    // MARK: - Idle timeout

    @Test func theIdleTimeoutIsResetByEveryByte() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(30) }
        sse.open()
        sse.advance(by: .seconds(20))
        sse.body(": ping\n") // a comment counts
        sse.advance(by: .seconds(30) - .nanoseconds(1))
        #expect(sse.ended() == nil)
        sse.advance(by: .nanoseconds(1))
        let end = sse.ended()
        #expect(end?.error?.code == .idleTimeout)
        #expect(end?.error?.detail == "no byte for 30 s")
        #expect(sse.loop.pendingTimerCount == 0)
    }

    @Test func theIdleTimeoutStartsAtTheFinalHead() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(5) }
        sse.start()
        sse.advance(by: .seconds(8)) // connecting: only the connect timeout runs
        #expect(sse.ended() == nil)
        sse.head(200)
        sse.advance(by: .seconds(5))
        #expect(sse.ended()?.error?.code == .idleTimeout)
    }

    // MARK: - An error body's wait

    @Test func anErrorBodyThatStallsEndsWithItsStatusAndTheExcerptSoFar() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(300) }
        sse.start()
        sse.requestStarting()
        sse.head(429, [("Retry-After", "7"), ("Content-Type", "application/json")])
        sse.body("{\"error\":{\"message\":\"slow")
        sse.advance(by: RealtimeError.bodyExcerptWait - .nanoseconds(1))
        #expect(sse.ended() == nil)
        sse.advance(by: .nanoseconds(1))
        let end = sse.ended()
        #expect(end?.error?.code == .httpStatus)
        #expect(end?.error?.status == 429)
        #expect(end?.error?.retryAfter == .seconds(7))
        #expect(end?.error?.bodyExcerpt == "{\"error\":{\"message\":\"slow")
        #expect(end?.requestWasDelivered == true)
        #expect(sse.loop.pendingTimerCount == 0)
        #expect(sse.curl.ended, "the stalled transfer is let go")
    }

    @Test func anErrorBodyThatTricklesIsNotWaitedForPastItsWait() {
        // Bytes keep coming, each before an idle period: the wait is for the whole excerpt.
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(300) }
        sse.start()
        sse.head(503, [])
        for byte in "unavailable".utf8 {
            sse.body([byte])
            sse.advance(by: .milliseconds(100))
        }
        let end = sse.ended()
        #expect(end?.error?.code == .httpStatus)
        #expect(end?.error?.status == 503)
        #expect(end?.error?.bodyExcerpt == "unavailabl", "ten bytes within the second")
    }

    @Test func anErrorBodyWithoutAnyByteStillReportsItsStatus() {
        let sse = EmbeddedSSE { $0.idleTimeout = nil }
        sse.start()
        sse.head(401, [])
        sse.advance(by: RealtimeError.bodyExcerptWait)
        let end = sse.ended()
        #expect(end?.error?.code == .httpStatus)
        #expect(end?.error?.status == 401)
        #expect(end?.error?.bodyExcerpt == nil)
    }

    @Test func aStalledBodyOfAnotherMediaTypeIsStillTheWrongContentType() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(300) }
        sse.start()
        sse.head(200, [("Content-Type", "application/json")])
        sse.body("{\"error\":")
        sse.advance(by: RealtimeError.bodyExcerptWait)
        let end = sse.ended()
        #expect(end?.error?.code == .invalidContentType)
        #expect(end?.error?.status == 200)
        #expect(end?.error?.bodyExcerpt == "{\"error\":")
    }

    @Test func aShorterIdleTimeoutBoundsTheErrorBodyWait() {
        let sse = EmbeddedSSE { $0.idleTimeout = .milliseconds(200) }
        sse.start()
        sse.head(500, [])
        sse.advance(by: .milliseconds(200))
        let end = sse.ended()
        #expect(end?.error?.code == .httpStatus, "the status, not the silence")
        #expect(end?.error?.status == 500)
    }

    @Test func anErrorBodyThatEndsInTimeIsNotCut() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(300) }
        sse.start()
        sse.head(500, [])
        sse.body("{\"error\":")
        sse.advance(by: .milliseconds(900))
        sse.body("\"busy\"}")
        sse.complete()
        #expect(sse.ended()?.error?.bodyExcerpt == "{\"error\":\"busy\"}")
        sse.advance(by: .seconds(1))
        #expect(sse.ended() == nil, "one end")
        #expect(sse.loop.pendingTimerCount == 0)
    }

    // MARK: - Back-pressure

    @Test func aFullChannelPausesTheTransferAndThePauseIsNotSilence() {
        let sse = EmbeddedSSE {
            $0.eventBufferCapacity = 4
            $0.idleTimeout = .seconds(30)
        }
        sse.start()
        sse.head(200)
        sse.body((1...10).map { "id: \($0)\ndata: x\n\n" }.joined())
        #expect(sse.body("id: 11\ndata: x\n\n") == EmbeddedSSE.pause, "curl holds the next chunk")
        #expect(sse.machine.paused)
        sse.advance(by: .seconds(300))
        #expect(sse.events.bufferedCount == 11, "nothing ended while the consumer was behind")
        let caughtUp = sse.takeEvents()
        #expect(Self.ids(caughtUp) == decimalIDs(1...10))
        #expect(sse.curl.unpauses == 1)
        #expect(sse.curl.kicks == 1)
        // curl delivers the held chunk again after the unpause.
        #expect(sse.body("id: 11\ndata: x\n\n") > 0)
        #expect(Self.ids(sse.takeEvents()) == ["11"])
        sse.advance(by: .seconds(30) - .nanoseconds(1))
        #expect(sse.ended() == nil, "the idle period counts from the catch-up")
        sse.advance(by: .nanoseconds(1))
        #expect(sse.ended()?.error?.code == .idleTimeout)
    }

    @Test func aConsumerBehindAQuietServerIsNotAnIdleTimeout() {
        // The burst filled the channel, and the server went quiet: no next chunk to pause on.
        let sse = EmbeddedSSE {
            $0.eventBufferCapacity = 4
            $0.idleTimeout = .seconds(2)
        }
        sse.open()
        sse.body((1...10).map { "id: \($0)\ndata: x\n\n" }.joined())
        #expect(sse.machine.pauseRequested)
        sse.advance(by: .seconds(10))
        #expect(sse.events.bufferedCount == 10)
        #expect(Self.ids(sse.takeEvents()) == decimalIDs(1...10))
        #expect(sse.curl.unpauses == 0, "never paused: nothing to unpause")
        sse.advance(by: .seconds(2) - .nanoseconds(1))
        #expect(sse.ended() == nil)
        sse.advance(by: .nanoseconds(1))
        #expect(sse.ended()?.error?.code == .idleTimeout)
    }

    // MARK: - Path probe

    @Test func aSilentStreamFailsTheProbeLongBeforeItsIdleTimeout() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(60) }
        sse.open()
        sse.body("id: 1\ndata: x\n\n")
        sse.advance(by: .seconds(3))
        sse.verify(within: .seconds(5))
        sse.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(sse.ended() == nil)
        sse.advance(by: .nanoseconds(1))
        let end = sse.ended()
        #expect(end?.error?.code == .idleTimeout)
        #expect(end?.error?.detail == "no byte within 5 s after the network path changed")
        #expect(sse.loop.pendingTimerCount == 0)
    }

    @Test func aByteAfterTheProbeRestoresTheIdleTimeout() {
        let sse = EmbeddedSSE { $0.idleTimeout = .seconds(60) }
        sse.open()
        sse.verify(within: .seconds(5))
        sse.advance(by: .seconds(4))
        sse.body(": alive\n")
        sse.advance(by: .seconds(1))
        #expect(sse.ended() == nil, "the probe passed")
        sse.advance(by: .seconds(59) - .nanoseconds(1)) // 60 s after the byte, less 1 ns
        #expect(sse.ended() == nil)
        sse.advance(by: .nanoseconds(1))
        #expect(sse.ended()?.error?.code == .idleTimeout)
    }

    @Test func aProbeBeforeTheStreamOpensOrWhileTheConsumerIsBehindIsANoOp() {
        let connecting = EmbeddedSSE()
        connecting.start()
        connecting.verify(within: .seconds(1))
        #expect(connecting.loop.pendingTimerCount == 1, "the connect timer only")
        connecting.head(200)
        connecting.advance(by: .seconds(5))
        #expect(connecting.ended() == nil)

        let behind = EmbeddedSSE { $0.eventBufferCapacity = 2 }
        behind.open()
        behind.body((1...4).map { "id: \($0)\ndata: x\n\n" }.joined())
        behind.verify(within: .seconds(1))
        behind.advance(by: .seconds(5))
        #expect(behind.events.bufferedCount == 4, "no end while the consumer is behind")
    }

    // MARK: - Close and abort in every phase

    enum Phase: String, CaseIterable, Sendable {
        case beforeStart, connecting, requestSent, redirecting, open, paused, errorBody, probing
    }

    static func attempt(at phase: Phase) -> EmbeddedSSE {
        let sse = EmbeddedSSE {
            $0.eventBufferCapacity = 2
            $0.idleTimeout = .seconds(30)
        }
        guard phase != .beforeStart else { return sse }
        sse.start()
        switch phase {
        case .beforeStart, .connecting: break
        case .requestSent: sse.requestStarting()
        case .redirecting: sse.head(301, [("Location", "/b")])
        case .open: sse.head(200)
        case .paused:
            sse.head(200)
            sse.body("data: 1\n\ndata: 2\n\n")
            sse.body("data: 3\n\n")
        case .errorBody: sse.head(503, [])
        case .probing:
            sse.head(200)
            sse.verify(within: .seconds(5))
        }
        return sse
    }

    @Test("close or abort in every phase: one ended(cancelled), handle and timers gone; late curl calls and timers are ignored", arguments: Phase.allCases)
    func closeInEveryPhase(_ phase: Phase) {
        let sse = Self.attempt(at: phase)
        sse.cancel()
        sse.cancel()
        #expect(sse.loop.pendingTimerCount == 0)
        #expect(sse.curl.ended || phase == .beforeStart)
        // Whatever curl or the loop still had in hand.
        sse.loop.onLoop {
            var chunk = Array("data: late\n\n".utf8)
            _ = chunk.withUnsafeMutableBytes { sse.connection.value.received($0.baseAddress, $0.count) }
            sse.connection.value.completed(CURLE_OK)
            sse.connection.value.resume()
            sse.connection.value.verify(within: .seconds(1))
        }
        sse.advance(by: .seconds(3600))
        let events = sse.takeEvents()
        let ends = events.compactMap { if case .ended(let e) = $0 { return e } else { return nil } }
        #expect(ends.count == 1)
        #expect(ends.first?.error?.code == .cancelled)
        #expect(ends.first?.requestWasDelivered == ![.beforeStart, .connecting].contains(phase))
        #expect(!events.contains { if case .message(let m) = $0 { return m.text == "late" } else { return false } })
        guard case .ended? = events.last else { Issue.record("ended is not last: \(events)"); return }
    }

    @Test func aTimerCancelledByTheEndNeverFires() {
        let sse = EmbeddedSSE {
            $0.connectTimeout = .seconds(1)
            $0.idleTimeout = .seconds(1)
        }
        sse.open()
        sse.verify(within: .seconds(1))
        #expect(sse.loop.pendingTimerCount == 2) // idle, probe
        sse.complete()
        #expect(sse.loop.pendingTimerCount == 0)
        sse.advance(by: .seconds(10))
        #expect(sse.takeEvents().filter { if case .ended = $0 { return true } else { return false } }.count == 1)
    }
}
#endif

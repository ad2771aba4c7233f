#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// What the response head decides, through ``RealtimeClient`` (Transports, Errors): the
/// content type, statuses that open no stream, the body excerpt, `Retry-After` and what an
/// error's description leaves out.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSEResponseTests {
    /// The first error of attempt 1, answered with `status`, `headers` and `body`.
    static func firstError(
        _ status: Int, headers: [(String, String)], body: String = "",
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) async throws -> (error: ErrorEvent, summary: String) {
        let t = try EmbeddedClient(configure: configure)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: status, headers: headers)
        if !body.isEmpty { first.send(body) }
        first.finish()
        await rec.waitFor("an error") { $0.errorEvent != nil }
        return (try #require(rec.events.compactMap(\.errorEvent).first), rec.summary)
    }

    /// `Content-Type` is matched without its parameters and in any case (RFC 9110 §8.3.1).
    @Test func aContentTypeWithParametersInAnyCaseOpensTheStream() async throws {
        let t = try EmbeddedClient { $0.reconnect = .finite }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(headers: [("Content-Type", "Text/Event-Stream ; charset=utf-8")])
        first.event("a")
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a) closed(final)")
    }

    /// A 200 without a `Content-Type` is a wrong content type: `invalid_content_type`,
    /// the status and the start of the body, and the client stops.
    @Test func a200WithoutAContentTypeStopsWithInvalidContentType() async throws {
        let (error, summary) = try await Self.firstError(200, headers: [], body: "hello")
        #expect(summary == "error(invalid_content_type,stop)")
        #expect(error.error.status == 200 && error.error.bodyExcerpt == "hello")
        #expect(error.error.failureClass == .content)
    }

    /// A 2xx other than 200 and 204 opens no stream (WHATWG: fail the connection): it is an
    /// `http_status` error with that status, and the client stops.
    @Test(arguments: [201, 202, 205]) func anotherSuccessStatusStops(status: Int) async throws {
        let (error, summary) = try await Self.firstError(status, headers: [("Content-Type", "text/event-stream")])
        #expect(summary == "error(http_status,stop)")
        #expect(error.error.status == status && error.retryIn == nil)
    }

    /// `bodyExcerpt` holds at most 512 bytes of the body, cut at a Unicode scalar boundary.
    @Test func theBodyExcerptIsBoundedAtAScalarBoundary() async throws {
        let body = "a" + String(repeating: "é", count: 400)  // byte 512 is the first of an é
        let (error, summary) = try await Self.firstError(503, headers: [("Content-Type", "text/plain")], body: body)
        #expect(summary == "error(http_status,retry)", "a body cut off after the excerpt is still the status's error")
        let excerpt = try #require(error.error.bodyExcerpt)
        #expect(excerpt == "a" + String(repeating: "é", count: 255))
        #expect(excerpt.utf8.count <= RealtimeError.maxBodyExcerpt)
    }

    /// An excerpt is decoded leniently (invalid bytes become U+FFFD) and still holds at most
    /// 512 bytes once decoded.
    @Test func anInvalidBodyIsDecodedLenientlyWithinTheBound() async throws {
        let t = try EmbeddedClient { $0.reconnect = .never }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: 500, headers: [("Content-Type", "text/plain")])
        first.send([UInt8](repeating: 0xFF, count: 600))
        first.finish()
        await rec.waitUntilFinished()
        let excerpt = try #require(rec.events.compactMap(\.errorEvent).first?.error.bodyExcerpt)
        #expect(excerpt == String(repeating: "\u{FFFD}", count: 170), "170 × 3 bytes")
    }

    /// A `Retry-After` HTTP date is a floor for the delay too: a date past the backoff's
    /// maximum waits the maximum; a date in the past adds nothing to the backoff.
    @Test(arguments: [("Fri, 31 Dec 2100 23:59:59 GMT", 30), ("Sun, 06 Nov 1994 08:49:37 GMT", 1)])
    func aRetryAfterDateIsAFloor(date: String, seconds: Int) async throws {
        let (error, summary) = try await Self.firstError(503, headers: [("Retry-After", date)], body: "busy")
        #expect(summary == "error(http_status,retry)")
        #expect(error.retryIn == .seconds(seconds))
        #expect(error.error.retryAfter != nil, "the date was read")
    }

    /// `Retry-After` is a floor, never a ceiling: a shorter one leaves the backoff's delay.
    @Test func aShortRetryAfterDoesNotShortenTheBackoff() async throws {
        let (error, _) = try await Self.firstError(503, headers: [("Retry-After", "2")], body: "busy") {
            $0.backoff = .constant(.seconds(5))
        }
        #expect(error.retryIn == .seconds(5) && error.error.retryAfter == .seconds(2))
    }

    /// A `Retry-After` that is neither seconds nor an HTTP date is ignored.
    @Test func anInvalidRetryAfterIsIgnored() async throws {
        let (error, _) = try await Self.firstError(503, headers: [("Retry-After", "soon")], body: "busy")
        #expect(error.retryIn == .seconds(1) && error.error.retryAfter == nil)
    }

    /// An error's description never holds a request header value, the body or the URL's
    /// credentials.
    @Test func theDescriptionHoldsNoSecret() async throws {
        let t = try EmbeddedClient("http://user:pa55word@peer.test/stream") {
            $0.headers = ["Authorization": "Bearer t0ken"]
            $0.reconnect = .never
        }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: 500, headers: [("Content-Type", "text/plain")])
        first.send("b0dy-secret")
        first.finish()
        await rec.waitUntilFinished()
        let error = try #require(rec.events.compactMap(\.errorEvent).first?.error)
        #expect(error.bodyExcerpt == "b0dy-secret", "the body is in its own property")
        let text = "\(error) \(String(describing: error.underlying))"
        for secret in ["pa55word", "t0ken", "b0dy-secret"] { #expect(!text.contains(secret), "\(text)") }
    }

    /// An error body that stalls does not hold the error back: one second after the head the
    /// error is reported with what arrived, and retried.
    @Test func aStalledErrorBodyIsReportedAfterOneSecond() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: 503, headers: [("Content-Type", "text/plain")])
        first.send("par")
        t.advance(by: .milliseconds(999))
        #expect(!first.ended, "the body may still come")
        t.advance(by: .milliseconds(1))
        #expect(first.ended)
        await rec.waitFor(1)
        let error = try #require(rec.events.first?.errorEvent)
        #expect(error.error.code == .httpStatus && error.error.bodyExcerpt == "par" && error.willRetry)
    }

    /// A `Content-Encoding` the client cannot decode stops it with `invalid_content_encoding`,
    /// the coding named in the detail.
    @Test func anUndecodableContentEncodingStops() async throws {
        let headers = [("Content-Type", "text/event-stream"), ("Content-Encoding", "X-Squash")]
        let (error, summary) = try await Self.firstError(200, headers: headers)
        #expect(summary == "error(invalid_content_encoding,stop)")
        #expect(error.error.detail?.contains("x-squash") == true, "\(error.error)")
    }
    /// A status outside 100…599 is invalid and handled as a 5xx (RFC 9110 §15): retried with
    /// backoff.
    @Test(arguments: [600, 999]) func anInvalidStatusIsRetried(status: Int) async throws {
        let (error, summary) = try await Self.firstError(status, headers: [("Content-Type", "text/plain")], body: "?")
        #expect(summary == "error(http_status,retry)")
        #expect(error.error.status == status && error.retryIn == .seconds(1))
    }
    /// With `SSEOptions.jsonBodyLimit`, a 200 JSON answer is one message and the end, a 202
    /// an orderly end with nothing, and a JSON body over the limit `message_too_large`.
    @Test(arguments: [
        (200, #"{"a":1}"#, #"open(1) event({"a":1}) closed(final)"#), (202, "", ""),
        (200, String(repeating: "x", count: 33), "open(1) error(message_too_large,stop) closed(final)"),
    ])
    func aJSONAnswerIsOneMessageWhenAllowed(status: Int, body: String, summary: String) async throws {
        let t = try EmbeddedClient { $0.sse.jsonBodyLimit = 32 }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: status, headers: [("Content-Type", "application/json")])
        if !body.isEmpty { first.send(body) }
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == summary)
        #expect(t.connectionCount == 1, "no reconnect, as after a 204")
    }
}
#endif

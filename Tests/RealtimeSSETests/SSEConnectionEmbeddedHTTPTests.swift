#if os(Linux)
import CCurl
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

/// HTTP semantics of one SSE attempt on the production connection, the test playing libcurl
/// (``EmbeddedSSE``): redirects and what they forward, error statuses and their excerpts, the
/// content type, `Retry-After`, JSON and 202 answers, a body dripped byte by byte, requests
/// refused before any I/O.
/// What needs libcurl itself (the request on the wire, HTTP framing, refused connections, DNS,
/// proxies) is over a socket in `SSETransportTests`.
@Suite("SSEConnection on the embedded loop: HTTP", .timeLimit(.minutes(1)), .endsEmbeddedConnections)
struct SSEConnectionEmbeddedHTTPTests {
    static func texts(_ events: [TransportEvent]) -> [String] {
        events.compactMap { if case .message(let m) = $0 { return m.text } else { return nil } }
    }

    /// What an attempt reported once answered with `status`, `headers` and the body in
    /// `pieces` (one chunk each), then a clean end of the body.
    static func events(
        _ status: Int, _ headers: [(String, String)], pieces: [String], options: SSEOptions = EmbeddedSSE.quietOptions
    ) -> [TransportEvent] {
        let sse = EmbeddedSSE(options: options)
        sse.start()
        sse.requestStarting()
        sse.head(status, headers)
        for piece in pieces { sse.body(piece) }
        sse.complete()
        return sse.takeEvents()
    }

    /// How an attempt answered with `status`, `headers` and `body` ended.
    static func answered(_ status: Int, _ headers: [(String, String)], body: String = "") -> TransportEnd? {
        let events = events(status, headers, pieces: body.isEmpty ? [] : [body])
        guard case .ended(let end)? = events.last else { return nil }
        return end
    }

    // MARK: - Redirects

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectIsFollowedAndTheStreamOpensAtItsTarget(status: Int) {
        let sse = EmbeddedSSE()
        sse.start()
        sse.head(status, [("Location", "/sse?count=2")])
        sse.complete()
        #expect(sse.curl.hops.map(\.url.absoluteString) == ["http://example.test/stream", "http://example.test/sse?count=2"])
        sse.curl.effectiveURL = sse.curl.hops.last?.url
        sse.head(200)
        sse.body("id: 1\ndata: a\n\nid: 2\ndata: b\n\n")
        sse.complete()
        let events = sse.takeEvents()
        guard case .opened(let info)? = events.first else { Issue.record("not opened: \(events)"); return }
        #expect(info.url.query == "count=2")
        #expect(Self.texts(events) == ["a", "b"])
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.clean)
    }

    @Test func credentialsAreNotForwardedToAnotherOriginButStayOnTheSameOne() {
        let sse = EmbeddedSSE {
            $0.headers = ["Authorization": "Bearer secret-token", "Cookie": "session=abc", "X-Trace": "abc"]
        }
        sse.start()
        sse.head(307, [("Location", "/same")])
        sse.complete()
        sse.head(307, [("Location", "http://other.test:8080/sse")])
        sse.complete()
        let hops = sse.curl.hops
        #expect(hops.count == 3)
        #expect(hops.prefix(2).allSatisfy { $0.headers["Authorization"] == "Bearer secret-token" && $0.headers["Cookie"] == "session=abc" })
        let other = hops.last
        #expect(other?.url.host == "other.test")
        #expect(other?.headers["Authorization"] == nil && other?.headers["Cookie"] == nil)
        #expect(other?.headers["X-Trace"] == "abc", "only the credentials are dropped")
    }

    @Test func aRedirectWithoutLocationFailsWithRedirect() {
        let end = Self.answered(302, [])
        #expect(end?.error?.code == .redirect)
        #expect(end?.error?.status == 302)
        #expect(end?.clean == false)
    }

    // MARK: - Error statuses

    @Test(arguments: [400, 401, 404, 429, 500, 503])
    func anErrorStatusIsTypedWithItsBodyAndRetryAfterSeconds(status: Int) {
        let end = Self.answered(status, [("Content-Type", "text/plain"), ("Retry-After", "7")], body: "overloaded")
        let error = end?.error
        #expect(error?.code == .httpStatus)
        #expect(error?.status == status)
        #expect(error?.bodyExcerpt == "overloaded")
        #expect(error?.retryAfter == .seconds(7))
        #expect(end?.clean == false)
    }

    @Test func retryAfterAsAnHTTPDateIsTheTimeUntilThatDate() throws {
        let end = Self.answered(503, [("Retry-After", "Fri, 31 Dec 2100 23:59:59 GMT")])
        #expect(end?.error?.status == 503)
        let delay = try #require(end?.error?.retryAfter)
        #expect(delay > .seconds(365 * 24 * 3600))
    }

    @Test func theExcerptOfAnEndlessErrorBodyIsBoundedAndTheTransferStopped() {
        let sse = EmbeddedSSE()
        sse.start()
        sse.head(500, [("Content-Type", "text/plain")])
        let block = [UInt8](repeating: UInt8(ascii: "e"), count: 4096)
        var chunks = 0
        while chunks < 100, sse.body(block) == block.count { chunks += 1 }
        #expect(chunks < 100, "the write callback stops the endless body")
        sse.complete(CURLE_WRITE_ERROR)
        let error = sse.ended()?.error
        #expect(error?.status == 500)
        #expect(error?.bodyExcerpt?.utf8.count == RealtimeError.maxBodyExcerpt)
    }

    /// The `é` at offsets 511 and 512 ends past the 512-byte bound: it is left out, not cut
    /// in two or replaced.
    @Test func theExcerptIsCutAtAScalarBoundary() throws {
        let end = Self.answered(503, [("Content-Type", "text/plain")], body: "a" + String(repeating: "é", count: 400))
        let excerpt = try #require(end?.error?.bodyExcerpt)
        #expect(excerpt == "a" + String(repeating: "é", count: 255))
        #expect(excerpt.utf8.count == 511)
    }

    // MARK: - Content type

    @Test(arguments: ["text/event-stream", "Text/Event-Stream; charset=utf-8", "text/event-stream;charset=UTF-8"])
    func anEventStreamOpensWhateverItsCaseAndParameters(type: String) {
        let sse = EmbeddedSSE()
        sse.start()
        sse.head(200, [("Content-Type", type)])
        sse.body("data: ok\n\n")
        #expect(Self.texts(sse.takeEvents()) == ["ok"])
    }

    @Test func anHTMLAnswerIsInvalidContentType() {
        let end = Self.answered(200, [("Content-Type", "text/html")], body: "<html></html>")
        #expect(end?.error?.code == .invalidContentType)
        #expect(end?.error?.status == 200)
    }

    @Test func a200ThatIsNotAnEventStreamKeepsItsBodyAsTheExcerpt() {
        let body = #"{"error":{"message":"Invalid API key","type":"invalid_request_error"}}"#
        let events = Self.events(200, [("Content-Type", "application/json")], pieces: [String(body.prefix(20)), String(body.dropFirst(20))])
        #expect(events.count == 1, "never opened: \(events)")
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.error?.code == .invalidContentType)
        #expect(end.error?.detail == "Content-Type application/json")
        #expect(end.error?.bodyExcerpt == body)
    }

    // MARK: - JSON and 202 answers (`SSEOptions.jsonBodyLimit`)

    static func jsonOptions(limit: Int? = 1 << 20) -> SSEOptions {
        var options = EmbeddedSSE.quietOptions
        options.jsonBodyLimit = limit
        return options
    }

    @Test func aJSONBodyInPiecesIsOneWholeMessageThenAnEndThatAsksForNoReconnect() {
        let body = #"{"jsonrpc":"2.0","id":1,"result":{"text":"héllo"}}"#
        let events = Self.events(
            200, [("Content-Type", "application/json; charset=utf-8")], pieces: [String(body.prefix(10)), String(body.dropFirst(10))],
            options: Self.jsonOptions())
        #expect(events.filter { if case .opened = $0 { true } else { false } }.count == 1)
        #expect(Self.texts(events) == [body])
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.clean && end.doNotReconnect)
    }

    @Test func withoutTheOptionAJSONAnswerIsInvalidContentType() {
        let events = Self.events(200, [("Content-Type", "application/json")], pieces: ["{}"], options: Self.jsonOptions(limit: nil))
        guard case .ended(let end)? = events.last else { Issue.record("no end: \(events)"); return }
        #expect(end.error?.code == .invalidContentType)
    }

    @Test(arguments: [true, false])
    func a202IsAnOrderlyEndWithNoMessageOnlyWithTheOption(jsonBodies: Bool) {
        let events = Self.events(202, [], pieces: [], options: Self.jsonOptions(limit: jsonBodies ? 1 << 20 : nil))
        guard case .ended(let end)? = events.last else { Issue.record("no end: \(events)"); return }
        #expect(events.count == 1, "never opened, no message: \(events)")
        if jsonBodies {
            #expect(end.clean && end.doNotReconnect && end.error == nil)
        } else {
            #expect(end.error?.code == .httpStatus && end.error?.status == 202)
        }
    }

    @Test func aJSONBodyOverTheLimitIsMessageTooLarge() {
        let sse = EmbeddedSSE(options: Self.jsonOptions(limit: 1000))
        sse.start()
        sse.head(200, [("Content-Type", "application/json")])
        #expect(sse.body(String(repeating: "x", count: 5000)) == 0, "the write callback stops the body")
        sse.complete(CURLE_WRITE_ERROR)
        let events = sse.takeEvents()
        #expect(Self.texts(events).isEmpty)
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.error?.code == .messageTooLarge)
    }

    @Test func aJSONBodyThatIsNotUTF8IsInvalidUTF8() {
        let sse = EmbeddedSSE(options: Self.jsonOptions())
        sse.start()
        sse.head(200, [("Content-Type", "application/json")])
        sse.body([0x22, 0xFF, 0xFE, 0x22])
        sse.complete()
        let events = sse.takeEvents()
        #expect(Self.texts(events).isEmpty)
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.error?.code == .invalidUTF8)
    }

    // MARK: - Delivery

    @Test func multiByteUTF8DrippedByteByByteArrivesIntact() {
        let sse = EmbeddedSSE()
        sse.open()
        let text = "id: 1\ndata: héllo wörld 日本語 🌍\n\nid: 2\ndata: 🌍🌍\n\n"
        for byte in Array(text.utf8) { sse.body([byte]) }
        #expect(Self.texts(sse.takeEvents()) == ["héllo wörld 日本語 🌍", "🌍🌍"])
    }

    // MARK: - Requests refused before any I/O

    @Test(arguments: [
        ("ws://example.test/x", "GET", RealtimeError.Code.unsupportedScheme),
        ("http://example.test/x", "GE T", .invalidConfiguration),
        ("http://example.test/x", "", .invalidConfiguration),
    ] as [(String, String, RealtimeError.Code)])
    func aRequestThatCannotBeSentFailsBeforeCurlIsAsked(url: String, method: String, expected: RealtimeError.Code) {
        let sse = EmbeddedSSE(url: url) { $0.method = method }
        sse.start()
        let end = sse.ended()
        #expect(end?.error?.code == expected)
        #expect(end?.requestWasDelivered == false)
        #expect(sse.curl.hops.isEmpty)
    }

    @Test(arguments: [true, false])
    func aRequestHeadOverItsBoundIsRefusedBeforeCurlIsAsked(byCursor: Bool) {
        let sse = EmbeddedSSE {
            if byCursor {
                $0.lastEventID = String(repeating: "7", count: 1_100_000)
            } else {
                $0.headers = ["X-Big": String(repeating: "h", count: 300_000)]
            }
        }
        sse.start()
        let end = sse.ended()
        #expect(end?.error?.code == .invalidConfiguration, "\(String(describing: end?.error))")
        #expect(end?.error?.detail?.contains("request header fields") == true)
        #expect(end?.requestWasDelivered == false && sse.curl.hops.isEmpty)
    }

    @Test(arguments: ["ftp://user:secret@127.0.0.1:21", "gopher://127.0.0.1"])
    func anUnsupportedProxySchemeIsRefusedBeforeCurlIsAskedWithoutQuotingIt(proxy: String) {
        var options = EmbeddedSSE.quietOptions
        options.proxy = .url(proxy)
        let sse = EmbeddedSSE(options: options)
        sse.start()
        let error = sse.ended()?.error
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.detail?.hasPrefix("proxy scheme \(proxy.prefix { $0 != ":" }) is not supported") == true)
        #expect(error?.description.contains("secret") == false)
        #expect(sse.curl.hops.isEmpty)
    }

    /// A 1.1 MB `id:` is ignored (the parser's 1 KiB bound): the message keeps the previous
    /// id, and the stream goes on.
    @Test func aHugeIDFromTheServerIsIgnoredAndTheStreamGoesOn() {
        let sse = EmbeddedSSE()
        sse.open()
        sse.body("id: 1\ndata: a\n\nid: " + String(repeating: "7", count: 1_100_000) + "\ndata: b\n\nid: 3\ndata: c\n\n")
        sse.complete()
        let events = sse.takeEvents()
        #expect(Self.texts(events) == ["a", "b", "c"])
        #expect(events.compactMap { if case .message(let m) = $0 { m.id } else { nil } } == ["1", "1", "3"])
        guard case .ended(let end)? = events.last else { Issue.record("no end"); return }
        #expect(end.clean)
    }

    @Test func anInjectedHeaderIsRefusedWithoutEchoingIt() {
        let sse = EmbeddedSSE { $0.headers = ["X-Evil": "a\r\nInjected: 1"] }
        sse.start()
        let error = sse.ended()?.error
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.description.contains("Injected") == false)
        #expect(sse.curl.hops.isEmpty)
    }
}
#endif

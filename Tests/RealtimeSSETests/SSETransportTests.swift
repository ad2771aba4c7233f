#if os(Linux)
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP semantics of one SSE attempt against the loopback ``TestServer``.
@Suite("SSETransport: HTTP", .timeLimit(.minutes(1)))
struct SSETransportTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    @Test("200 text/event-stream: opened, events in order, clean end")
    func openEventsEnd() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?count=3")) { $0.attempt = 4 }))
        let info = try #require(r.opened.first)
        #expect(r.opened.count == 1)
        #expect(info.status == 200)
        #expect(info.transport == .sse)
        #expect(info.attempt == 4)
        #expect(info.url.path == "/sse")
        #expect(info.headers["Content-Type"]?.hasPrefix("text/event-stream") == true)
        #expect(r.ids == ["1", "2", "3"])
        #expect(r.texts == ["event 1", "event 2", "event 3"])
        #expect(r.messages.allSatisfy { $0.type == "message" })
        let end = try #require(r.end)
        #expect(end.clean)
        #expect(end.error == nil)
        #expect(!end.doNotReconnect)
        guard case .opened = r.events.first else {
            Issue.record("first event is not opened")
            return
        }
    }

    @Test("request: Accept, Cache-Control, user headers, Last-Event-ID; resumes after it")
    func requestHeaders() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?count=5")) {
            $0.lastEventID = "2"
            $0.headers = ["Authorization": "Bearer secret-token", "X-Trace": "abc"]
        }))
        #expect(r.ids == ["3", "4", "5"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.method == "GET")
        #expect(seen.headers["Accept"] == "text/event-stream")
        #expect(seen.headers["Cache-Control"] == "no-cache")
        #expect(seen.headers["Last-Event-ID"] == "2")
        #expect(seen.headers["Authorization"] == "Bearer secret-token")
        #expect(seen.headers["X-Trace"] == "abc")
        #expect(seen.headers["Expect"] == nil)
        #expect(r.end?.clean == true)
    }

    @Test("no Last-Event-ID header on a first attempt")
    func noLastEventIDWhenNil() async throws {
        _ = await run(SSETransport(request: request(server.url("/sse?count=1"))))
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.headers["Last-Event-ID"] == nil)
    }

    @Test("POST with a JSON body (LLM style)", arguments: ["POST", "PUT", "PATCH", "REPORT"])
    func postWithBody(method: String) async throws {
        let body = #"{"prompt":"hi","stream":true}"#
        let r = await run(SSETransport(request: request(server.url("/sse?count=2")) {
            $0.method = method
            $0.body = Array(body.utf8)
            $0.headers = ["Content-Type": "application/json"]
        }))
        #expect(r.ids == ["1", "2"])
        let seen = try #require(server.requests(path: "/sse").last)
        #expect(seen.method == method)
        #expect(seen.bodyText == body)
        #expect(seen.headers["Content-Type"] == "application/json")
    }

    @Test("204 ends cleanly with doNotReconnect and never opens")
    func noContent() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?status=204"))))
        #expect(r.opened.isEmpty)
        let end = try #require(r.end)
        #expect(end.clean)
        #expect(end.doNotReconnect)
        #expect(end.error == nil)
    }

    @Test("3xx redirects are followed", arguments: [301, 302, 303, 307, 308])
    func redirectFollowed(status: Int) async throws {
        let target = "/sse?count=2".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let r = await run(SSETransport(request: request(server.url("/sse?status=\(status)&location=\(target)"))))
        #expect(r.ids == ["1", "2"])
        let info = try #require(r.opened.first)
        #expect(info.url.query?.contains("count=2") == true)
        #expect(r.end?.clean == true)
    }

    @Test("credentials are not forwarded to another origin on redirect")
    func redirectDropsCredentials() async throws {
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        let target = other.url("/sse?count=1").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let r = await run(SSETransport(request: request(server.url("/sse?status=307&location=\(target)")) {
            $0.headers = ["Authorization": "Bearer secret-token", "Cookie": "session=abc"]
        }))
        #expect(r.ids == ["1"])
        #expect(server.requests(path: "/sse").last?.headers["Authorization"] == "Bearer secret-token")
        let seen = try #require(other.requests(path: "/sse").last)
        #expect(seen.headers["Authorization"] == nil)
        #expect(seen.headers["Cookie"] == nil)
    }

    @Test("a redirect without Location fails with .redirect")
    func redirectWithoutLocation() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?status=302"))))
        #expect(r.opened.isEmpty)
        let error = try #require(r.end?.error)
        #expect(error.code == .redirect)
        #expect(error.status == 302)
    }

    @Test("more redirects than maxRedirects fails with .redirect")
    func tooManyRedirects() async throws {
        server.setHandler(path: "/loop") { w in
            try w.writeHead(status: 307, headers: ["Location": "/loop"], framing: .contentLength(0))
        }
        let r = await run(SSETransport(request: request(server.url("/loop")) { $0.maxRedirects = 3 }))
        #expect(r.end?.error?.code == .redirect)
        #expect(server.requests(path: "/loop").count == 4)
    }

    @Test("4xx/5xx: typed error with status, body excerpt and Retry-After seconds")
    func errorStatus() async throws {
        for status in [400, 401, 404, 429, 500, 503] {
            let r = await run(SSETransport(request: request(server.url("/sse?status=\(status)&retry_after=7&body=overloaded"))))
            #expect(r.opened.isEmpty)
            let error = try #require(r.end?.error)
            #expect(error.code == .httpStatus)
            #expect(error.status == status)
            #expect(error.bodyExcerpt == "overloaded")
            #expect(error.retryAfter == .seconds(7))
            #expect(r.end?.clean == false)
        }
    }

    @Test("Retry-After as an HTTP-date")
    func retryAfterDate() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?status=503&retry_after=Fri,%2031%20Dec%202100%2023:59:59%20GMT"))))
        let error = try #require(r.end?.error)
        #expect(error.status == 503)
        let delay = try #require(error.retryAfter)
        #expect(delay > .seconds(365 * 24 * 3600))
    }

    @Test("the body excerpt is bounded even for an endless error body")
    func boundedExcerpt() async throws {
        server.setHandler(path: "/huge-error") { w in
            try w.writeHead(status: 500, headers: ["Content-Type": "text/plain"], framing: .chunked)
            let block = [UInt8](repeating: UInt8(ascii: "e"), count: 4096)
            while true { try w.write(block) }
        }
        let r = await run(SSETransport(request: request(server.url("/huge-error"))))
        let error = try #require(r.end?.error)
        #expect(error.status == 500)
        #expect(error.bodyExcerpt?.utf8.count == RealtimeError.maxBodyExcerpt)
    }

    @Test("wrong Content-Type fails with invalidContentType; parameters are ignored")
    func contentType() async throws {
        let bad = await run(SSETransport(request: request(server.url("/sse?content_type=text/html"))))
        #expect(bad.opened.isEmpty)
        #expect(bad.end?.error?.code == .invalidContentType)
        #expect(bad.end?.error?.status == 200)
        let ok = await run(SSETransport(request: request(server.url("/sse?count=1&content_type=Text/Event-Stream;%20charset=utf-8"))))
        #expect(ok.ids == ["1"])
    }

    @Test("a 200 that is not an event stream is invalidContentType with the body's excerpt")
    func contentTypeKeepsTheBody() async throws {
        let body = #"{"error":{"message":"Invalid API key","type":"invalid_request_error"}}"#
        server.setHandler(path: "/json-200") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "application/json"], framing: .contentLength(body.utf8.count))
            try w.writeRaw(Array(body.utf8))
        }
        let r = await run(SSETransport(request: request(server.url("/json-200"))))
        #expect(r.opened.isEmpty)
        let error = try #require(r.end?.error)
        #expect(error.code == .invalidContentType)
        #expect(error.status == 200)
        #expect(error.detail == "Content-Type application/json")
        #expect(error.bodyExcerpt == body)
    }

    @Test("the body excerpt is cut at a scalar boundary, at most 512 bytes")
    func excerptCutAtAScalar() async throws {
        // Byte 511 starts an `é` whose second byte is the 513th: it is left out, not replaced.
        let body = "a" + String(repeating: "é", count: 400)
        server.setHandler(path: "/utf8-error") { w in
            try w.writeHead(status: 503, headers: ["Content-Type": "text/plain"], framing: .contentLength(body.utf8.count))
            try w.writeRaw(Array(body.utf8))
        }
        let r = await run(SSETransport(request: request(server.url("/utf8-error"))))
        let excerpt = try #require(r.end?.error?.bodyExcerpt)
        #expect(excerpt == "a" + String(repeating: "é", count: 255))
        #expect(excerpt.utf8.count == 511)
    }

    @Test("retry: field becomes a retryHint")
    func retryHint() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?count=1&retry=1500"))))
        #expect(r.retryHints == [.milliseconds(1500)])
    }

    @Test("multi-byte UTF-8 arrives intact when dripped byte by byte")
    func utf8Drip() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?count=2&utf8=1&drip=1"))))
        #expect(r.texts == ["event 1" + SSEStreamOptions.utf8Suffix, "event 2" + SSEStreamOptions.utf8Suffix])
    }

    @Test("a cut mid-event never delivers the partial event", arguments: ["close", "chunked", "length"])
    func cutMidEvent(framing: String) async throws {
        let options = SSEStreamOptions(query: ["count": "3", "utf8": "1"])
        let full = options.body(resumingAfter: nil)
        let firstTwo = options.event(id: 1).count + options.event(id: 2).count
        // Cut inside every byte of the third event, including inside its multi-byte code
        // points and before its final blank line.
        let third = options.event(id: 3).count
        for cut in stride(from: firstTwo + 1, to: full.count, by: max(1, third / 12)) + [full.count - 1] {
            let r = await run(SSETransport(request: request(server.url("/sse?count=3&utf8=1&cut=\(cut)&framing=\(framing)"))))
            #expect(r.ids == ["1", "2"], "cut at \(cut)")
            let end = try #require(r.end)
            if framing == "close" {
                // EOF is the only end marker here: a clean end, the partial event dropped.
                #expect(end.clean)
            } else {
                #expect(!end.clean)
                #expect(end.error?.code == .network)
            }
        }
    }

    @Test("connection refused is a network error, request not delivered")
    func refused() async throws {
        let r = await run(SSETransport(request: request(URL(string: "http://127.0.0.1:\(unusedPort())/sse")!)))
        let end = try #require(r.end)
        #expect(end.error?.code == .network)
        #expect(!end.requestWasDelivered)
    }

    @Test("an unresolvable host is a DNS failure")
    func dnsFailure() async throws {
        let r = await run(SSETransport(request: request(URL(string: "http://no-such-host.invalid/sse")!)))
        #expect(r.end?.error?.code == .dnsFailure)
    }

    @Test("an explicit proxy is used (a dead one fails the attempt)")
    func explicitProxy() async throws {
        var options = SSEOptions()
        options.proxy = .url("http://127.0.0.1:\(unusedPort())")
        let r = await run(SSETransport(request: request(server.url("/sse?count=1")), options: options))
        #expect(r.opened.isEmpty)
        #expect(r.end?.error?.code == .network)
        let direct = SSEOptions()
        #expect(direct.proxy == .environment)
    }

    @Test("parser limits end the attempt with a typed error")
    func lineTooLong() async throws {
        var options = SSEOptions()
        options.limits = SSEParser.Limits(maxLineLength: 100, maxEventSize: 1000)
        let r = await run(SSETransport(request: request(server.url("/sse?count=2&size=5000")), options: options))
        #expect(r.messages.isEmpty)
        #expect(r.end?.error?.code == .lineTooLong)
    }

    @Test("bad requests fail before any I/O")
    func validation() async throws {
        let ws = await run(SSETransport(request: request(URL(string: "ws://127.0.0.1:1/x")!)))
        #expect(ws.end?.error?.code == .unsupportedScheme)
        let injected = await run(SSETransport(request: request(server.url("/sse")) { $0.headers = ["X-Evil": "a\r\nInjected: 1"] }))
        #expect(injected.end?.error?.code == .invalidConfiguration)
        #expect(injected.end?.error?.description.contains("Injected") == false)
        let method = await run(SSETransport(request: request(server.url("/sse")) { $0.method = "GE T" }))
        #expect(method.end?.error?.code == .invalidConfiguration)
        #expect(server.requests(path: "/sse").isEmpty)
    }

    @Test("send is not supported")
    func sendNotSupported() async throws {
        let t = SSETransport(request: request(server.url("/sse")))
        await #expect(throws: RealtimeError(.sendNotSupported, detail: "SSE is receive-only")) {
            try await t.send(.text("x"))
        }
        t.close()
    }
}
#endif

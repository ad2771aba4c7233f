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

/// One SSE attempt through libcurl against the loopback ``TestServer``: the request on the
/// wire, HTTP framing, refused connections, DNS and proxies. The HTTP semantics the connection
/// decides itself are on the embedded stack (`SSEConnectionEmbeddedHTTPTests`).
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
        #expect(seen.headers["User-Agent"] == "swift-realtime", "the default user agent")
        #expect(r.end?.clean == true)
    }

    @Test("a request's own User-Agent replaces the default; nil sends none")
    func userAgent() async throws {
        _ = await run(SSETransport(request: request(server.url("/sse?count=1")) { $0.headers = ["User-Agent": "app/2.0"] }))
        #expect(try #require(server.requests(path: "/sse").last).headers.values(for: "User-Agent") == ["app/2.0"])
        var options = SSEOptions()
        options.userAgent = nil
        _ = await run(SSETransport(request: request(server.url("/sse?count=1")), options: options))
        #expect(try #require(server.requests(path: "/sse").last).headers["User-Agent"] == nil)
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

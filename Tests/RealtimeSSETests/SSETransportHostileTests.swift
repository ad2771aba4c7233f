#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hostile or broken inputs to one SSE attempt: each ends with a precise, typed error (never
/// `internal`), before any I/O when the problem is ours.
@Suite("SSETransport: hostile input", .timeLimit(.minutes(1)))
struct SSETransportHostileTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    @Test("a 1.1 MB id from the server is ignored (the previous id stays), never fatal")
    func hugeIDFromTheServer() async throws {
        let huge = String(repeating: "7", count: 1_100_000)
        server.setHandler(path: "/long-id") { w in
            try w.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try w.write("id: 1\ndata: a\n\nid: \(huge)\ndata: b\n\nid: 3\ndata: c\n\n")
        }
        let r = await run(SSETransport(request: request(server.url("/long-id"))))
        #expect(r.texts == ["a", "b", "c"])
        #expect(r.ids == ["1", "1", "3"])
        #expect(r.end?.clean == true)
    }

    @Test("a 1.1 MB Last-Event-ID or header from the caller is invalid_configuration before any I/O")
    func oversizedRequestHead() async throws {
        let huge = String(repeating: "7", count: 1_100_000)
        let byID = await run(SSETransport(request: request(server.url("/sse")) { $0.lastEventID = huge }))
        let byHeader = await run(SSETransport(request: request(server.url("/sse")) {
            $0.headers = ["X-Big": String(repeating: "h", count: 300_000)]
        }))
        for r in [byID, byHeader] {
            let end = try #require(r.end)
            #expect(end.error?.code == .invalidConfiguration, "\(String(describing: end.error))")
            #expect(end.error?.detail?.contains("request header fields") == true)
            #expect(!end.requestWasDelivered)
        }
        #expect(server.requests.isEmpty)
    }

    @Test("an endless response header line is a protocol violation, not internal or out of memory")
    func endlessHeaderLine() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?long_header=1048576"))))
        let end = try #require(r.end)
        #expect(r.opened.isEmpty)
        #expect(end.error?.code == .protocolViolation, "\(String(describing: end.error))")
        #expect(end.error?.detail?.contains("header line too long") == true)
        #expect(end.requestWasDelivered)
    }

    @Test("an unsupported proxy scheme is invalid_configuration before any I/O; the URL is never quoted")
    func unsupportedProxyScheme() async throws {
        for proxy in ["ftp://user:secret@127.0.0.1:21", "gopher://127.0.0.1"] {
            var options = SSEOptions()
            options.proxy = .url(proxy)
            let r = await run(SSETransport(request: request(server.url("/sse")), options: options))
            let end = try #require(r.end)
            #expect(end.error?.code == .invalidConfiguration)
            #expect(end.error?.detail?.hasPrefix("proxy scheme \(proxy.prefix { $0 != ":" }) is not supported") == true)
            #expect(end.error?.description.contains("secret") == false)
            #expect(!end.requestWasDelivered)
        }
        #expect(server.requests.isEmpty)
    }
}
#endif

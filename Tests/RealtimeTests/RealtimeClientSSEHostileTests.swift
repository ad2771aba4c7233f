#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// What a hostile SSE server sends the client through the real transport, and what the user
/// sees: never a permanent `internal` stop for something a retry or a clear error handles.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientSSEHostileTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func collect(_ client: RealtimeClient) async -> [ClientEvent] {
        var out: [ClientEvent] = []
        for await e in client.events { out.append(e) }
        return out
    }

    @Test("a 1.1 MB id is ignored: the client resumes with the last good id instead of stopping")
    func hugeIDDoesNotStopTheClient() async throws {
        defer { server.stop() }
        let huge = String(repeating: "9", count: 1_100_000)
        server.setHandler(path: "/long-id") { w in
            if w.request.headers["Last-Event-ID"] != nil {
                try w.writeHead(status: 204, framing: .none)
                return
            }
            try w.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            try w.write("id: 1\ndata: a\n\n")
            try w.write("id: \(huge)\ndata: b\n\n")
            // Cut mid-stream (a FIN inside the chunked body): a network error, retried.
            w.abort(reset: false)
        }
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        let client = try RealtimeClient(url: server.url("/long-id"), configuration: c)
        let events = await collect(client)
        let messages = events.compactMap { e -> Message? in if case .event(let m) = e { return m } else { return nil } }
        #expect(messages.map(\.text) == ["a", "b"])
        #expect(messages.map(\.id) == ["1", "1"])
        let errors = events.compactMap(\.errorEvent)
        #expect(!errors.contains { $0.error.code == .internal }, "\(errors.map(\.error))")
        #expect(errors.first?.willRetry == true)
        let requests = server.requests(path: "/long-id")
        #expect(requests.count == 2)
        #expect(requests.last?.headers["Last-Event-ID"] == "1")
    }

    @Test("a gzip stream cut again and again resumes exactly: every id once, in order")
    func compressedStreamResumesExactly() async throws {
        defer { server.stop() }
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        // Every connection is cut after 400 compressed bytes; each resumes after its last id.
        let client = try RealtimeClient(url: server.url("/sse?count=300&encoding=gzip&cut=400&end=204&utf8=1"), configuration: c)
        let events = await collect(client)
        let messages = events.compactMap { e -> Message? in if case .event(let m) = e { return m } else { return nil } }
        #expect(messages.compactMap(\.id) == decimalIDs(1...300))
        #expect(messages.allSatisfy { $0.text?.hasSuffix(SSEStreamOptions.utf8Suffix) == true })
        #expect(server.requests(path: "/sse").count > 2)
    }

    @Test("strict UTF-8: invalid bytes are a protocol error instead of U+FFFD; the default replaces them")
    func strictUTF8() async throws {
        defer { server.stop() }
        var strict = RealtimeClient.Configuration()
        strict.reconnect = .never
        strict.sse.strictUTF8 = true
        let rejected = await collect(try RealtimeClient(url: server.url("/sse?count=3&invalid_utf8=1"), configuration: strict))
        #expect(rejected.compactMap(\.errorEvent).first?.error.code == .invalidUTF8)
        #expect(!rejected.contains { if case .event = $0 { return true } else { return false } })

        var lenient = RealtimeClient.Configuration()
        lenient.reconnect = .never
        let replaced = await collect(try RealtimeClient(url: server.url("/sse?count=3&invalid_utf8=1"), configuration: lenient))
        let texts = replaced.compactMap { e -> String? in if case .event(let m) = e { return m.text } else { return nil } }
        #expect(texts.count == 3)
        #expect(texts.allSatisfy { $0.contains("\u{FFFD}") })
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// A hostile SSE server that needs libcurl (a gzip stream cut again and again) through the
/// real transport, and what the user sees: every id once. Hostile bodies are on the embedded
/// stack (`EmbeddedHostileSSETests`).
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
}
#endif

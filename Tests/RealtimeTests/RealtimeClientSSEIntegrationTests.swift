#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// RealtimeClient + the real SSE transport (and libcurl) against the in-package server on
/// loopback: exact resume across real cuts end to end, and credentials on a real redirect. The
/// client's rules (resume, backoff, stops) are checked on the embedded stack
/// (`EmbeddedClientSSEResumeTests`); bounded: small streams, the shortest backoff, every wait
/// capped.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientSSEIntegrationTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func client(_ path: String, _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws
        -> RealtimeClient
    {
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.connectTimeout = .seconds(5)
        c.idleTimeout = .seconds(5)
        configure(&c)
        return try RealtimeClient(url: server.url(path), configuration: c)
    }

    /// Collects events until the stream ends or `limit` events arrived (then closes).
    private func collect(_ client: RealtimeClient, limit: Int = 10_000) async -> [ClientEvent] {
        var out: [ClientEvent] = []
        for await e in client.events {
            out.append(e)
            if out.count >= limit { break }
        }
        return out
    }

    private func ids(_ events: [ClientEvent]) -> [Int] {
        events.compactMap { e in
            if case .event(let m) = e { return m.id.flatMap { Int($0) } }
            return nil
        }
    }

    @Test func resumesExactlyAcrossRandomCuts() async throws {
        defer { server.stop() }
        let c = try client("/sse?count=200&cuts=8&seed=7&end=204&utf8=1")
        let events = await collect(c)
        #expect(ids(events) == Array(1...200), "every id once, in order")
        #expect(Self.closedPairsWithOpen(events))
        let resumed = server.requests(path: "/sse").compactMap(\.lastEventID)
        #expect(resumed.count >= 8, "each cut resumed with Last-Event-ID")
        // Every event's data arrived whole, multi-byte code points included.
        for e in events {
            if case .event(let m) = e { #expect(m.text?.hasSuffix(SSEStreamOptions.utf8Suffix) == true) }
        }
    }

    /// Every `closed` follows an `open` with no other `closed` between them: a resume answered
    /// with 204 (the demo's path) ends the stream without a second, unpaired `closed`.
    static func closedPairsWithOpen(_ events: [ClientEvent]) -> Bool {
        var live = false
        for e in events {
            switch e {
            case .open: live = true
            case .closed:
                guard live else { return false }
                live = false
            default: break
            }
        }
        return true
    }

    @Test func userMarkedCredentialHeadersStayOnTheirOrigin() async throws {
        defer { server.stop() }
        let other = TestServer()
        try other.start()
        defer { other.stop() }
        let target = other.url("/sse?count=1").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let c = try client("/redirect?status=307&to=\(target)") {
            $0.headers = ["X-Tenant": "tenant-secret", "X-Trace": "abc"]
            $0.sensitiveHeaderNames = ["x-tenant"]
            $0.reconnect = .never
        }
        _ = await collect(c)
        let seen = try #require(other.requests(path: "/sse").first)
        #expect(seen.headers["X-Tenant"] == nil)
        #expect(seen.headers["X-Trace"] == "abc")
        #expect(server.requests(path: "/redirect").first?.headers["X-Tenant"] == "tenant-secret")
    }
}
#endif

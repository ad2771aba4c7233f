#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// RealtimeClient + the real SSE transport against the in-package server on loopback.
/// Bounded: small streams, the shortest backoff (100 ms), every wait capped.
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

    /// The resume soak: 100 random cuts over a 10,000-event stream.
    @Test func resumeSoakHundredCutsTenThousandEvents() async throws {
        defer { server.stop() }
        let c = try client("/sse?count=10000&cuts=100&seed=11&end=204")
        let events = await collect(c, limit: 100_000)
        #expect(ids(events) == Array(1...10_000), "every id exactly once, in order")
        #expect(server.requests(path: "/sse").count >= 101)
        #expect(Self.closedPairsWithOpen(events))
        #expect(c.lastEventID == "10000")
    }

    @Test func noContentStopsWithoutError() async throws {
        defer { server.stop() }
        let events = await collect(try client("/sse?status=204"))
        // No connection opened, so no `closed`: the event stream ends.
        #expect(events.map(\.short) == [])
        #expect(server.requests(path: "/sse").count == 1)
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

    @Test func aResumeAnsweredWith204EndsWithoutAnUnpairedClose() async throws {
        defer { server.stop() }
        let events = await collect(try client("/sse?count=10&interval_ms=1&cuts=1&seed=7&end=204"))
        #expect(ids(events) == Array(1...10))
        #expect(Self.closedPairsWithOpen(events), "\(events.map(\.short))")
        // The `closed` before the resume promised a reconnect; the server's 204 to that resume
        // withdraws it: the stream ends on an error that says no retry follows.
        #expect(events.last?.errorEvent?.error.code == .streamEnded, "\(events.map(\.short))")
        #expect(events.last?.errorEvent?.error.status == 204)
        #expect(events.last?.errorEvent?.willRetry == false)
        #expect(events.dropLast().last?.closeEvent?.willReconnect == true)
        #expect(server.requests(path: "/sse").last?.lastEventID == 10)
        let opens = events.filter { if case .open = $0 { return true } else { return false } }.count
        let closes = events.filter { if case .closed = $0 { return true } else { return false } }.count
        #expect(opens == closes)
    }

    @Test func serverErrorsAreRetriedThenTheStreamOpens() async throws {
        defer { server.stop() }
        let c = try client("/sse?status=503&fail_attempts=2&retry_after=0&count=3&end=204")
        let events = await collect(c)
        #expect(events.prefix(2).map(\.short) == ["error(http_status,retry)", "error(http_status,retry)"])
        #expect(events.dropFirst(2).first?.short == "open(3)")
        #expect(ids(events) == [1, 2, 3])
    }

    @Test(arguments: ["/sse?status=404", "/sse?content_type=text/plain", "/sse?status=401"])
    func fatalAnswersStop(_ path: String) async throws {
        defer { server.stop() }
        let events = await collect(try client(path))
        #expect(events.count == 1)
        #expect(events.first?.errorEvent?.willRetry == false)
        #expect(server.requests(path: "/sse").count == 1)
    }

    @Test func postIsNotRepeatedAfterACut() async throws {
        defer { server.stop() }
        let c = try client("/sse?count=20&cut=60") { $0.method = "POST"; $0.body = Array("{}".utf8) }
        let events = await collect(c)
        #expect(events.contains { $0.errorEvent?.error.code == .requestNotRepeatable })
        #expect(server.requests(path: "/sse").count == 1)
        #expect(server.requests(path: "/sse").first?.bodyText == "{}")
    }

    @Test func closeStopsALiveStream() async throws {
        defer { server.stop() }
        let c = try client("/sse?count=1&end=hold")
        var it = c.events.makeAsyncIterator()
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(event 1)")
        c.close()
        #expect(await it.next() == nil)
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

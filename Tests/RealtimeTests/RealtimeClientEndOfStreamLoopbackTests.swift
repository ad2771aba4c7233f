#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// The end of an LLM reply over real sockets: a server that holds the connection open after
/// `data: [DONE]` does not keep the reply open; a reply cut short is `truncated`; the request
/// is sent once in every case.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientEndOfStreamLoopbackTests {
    /// Streams `deltas`, then (when `done`) `data: [DONE]`, then holds the connection open
    /// until the client leaves (recording that it did) or, without `done`, ends the body cleanly.
    func startServer(done: Bool, closed: Observed<Bool>) throws -> TestServer {
        let server = TestServer()
        server.setHandler(path: "/v1/chat") { response in
            try response.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
            for i in 0..<3 { try response.write("data: {\"delta\":\"\(i)\"}\n\n") }
            guard done else { return try response.finish() }
            try response.write("data: [DONE]\n\n")
            do { try response.hold() } catch { closed.update { $0 = true } }
        }
        try server.start()
        return server
    }

    func client(_ server: TestServer) throws -> RealtimeClient {
        var configuration = RealtimeClient.Configuration.llm(body: Array(#"{"prompt":"hi"}"#.utf8))
        configuration.idleTimeout = .seconds(30)
        return try RealtimeClient(url: server.url("/v1/chat"), configuration: configuration)
    }

    @Test func doneThenAHeldConnectionEndsTheReplyAtOnce() async throws {
        let closed = Observed(false)
        let server = try startServer(done: true, closed: closed)
        defer { server.stop() }
        let c = try client(server)
        // The server never lets go and the idle timeout is 30 s: only [DONE] can end the reply
        // within the suite's time limit.
        var deltas = 0
        var last: ClientEvent?
        for await event in c.events {
            if case .event = event { deltas += 1 }
            last = event
        }
        #expect(deltas == 3)
        #expect(last?.closeEvent == CloseEvent(clean: true, willReconnect: false))
        await closed.wait("the server to see the connection closed") { $0 }
        #expect(server.requests(path: "/v1/chat").count == 1)
        #expect(c.statistics.attempts == 1 && c.state == .closed(nil))
    }

    @Test func aReplyCutShortIsTruncated() async throws {
        let server = try startServer(done: false, closed: Observed(false))
        defer { server.stop() }
        let c = try client(server)
        var events: [ClientEvent] = []
        for await event in c.events { events.append(event) }
        #expect(events.map(\.short) == ["open(1)", "event({\"delta\":\"0\"})", "event({\"delta\":\"1\"})",
                                        "event({\"delta\":\"2\"})", "error(truncated,stop)", "closed(final)"])
        #expect(server.requests(path: "/v1/chat").count == 1)
        #expect(c.statistics.attempts == 1)
    }

    @Test func anErrorStatusIsReportedWithItsBody() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        var configuration = RealtimeClient.Configuration.llm(body: [0x7B, 0x7D])
        configuration.idleTimeout = .seconds(30)
        let c = try RealtimeClient(
            url: server.url("/sse?status=429&retry_after=7&body=%7B%22error%22%3A%22slow%22%7D"), configuration: configuration)
        var events: [ClientEvent] = []
        for await event in c.events { events.append(event) }
        let e = try #require(events.first?.errorEvent)
        #expect(events.count == 1)
        #expect(e.error.code == .httpStatus && e.error.status == 429 && !e.willRetry)
        #expect(e.error.retryAfter == .seconds(7))
        #expect(e.error.bodyExcerpt?.contains("slow") == true)
        #expect(server.requests(path: "/sse").count == 1)
    }
}
#endif

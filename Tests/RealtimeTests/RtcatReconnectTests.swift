import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// rtcat as a child process for the client's reconnect behaviour: a truthful last line, the
/// server's `retry:` and the reconnection time, `--reset-after`, `--comments`, and a restart
/// on SIGHUP.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RtcatReconnectTests {
    let runner = RtcatTests()

    func startServer() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    @Test func theServersRetryIsPrintedAndPacesTheReconnect() async throws {
        let server = try startServer()
        defer { server.stop() }
        // `retry: 300` first; the first connection is cut mid-stream, the resume gets the rest,
        // the next resume gets 204.
        let url = server.url("/sse?count=10&retry=300&cuts=1&seed=7&end=204").absoluteString
        let r = try await runner.rtcat([url])
        #expect(r.status == 0, "\(r.stderr)")
        let objects = r.objects
        let retrying = objects.filter { ($0["willRetry"] as? Bool) == true }
        let first = try #require(retrying.first, "\(r.stdout)")
        let retryIn = try #require(first["retryIn"] as? Double)
        #expect(retryIn >= 0.3 && retryIn <= 0.375, "the hint plus at most 25 %: \(retryIn)")
        #expect(first["reconnectionTime"] as? Double == 0.3)
        let reconnecting = objects.filter { ($0["willReconnect"] as? Bool) == true }
        #expect(!reconnecting.isEmpty && reconnecting.allSatisfy { $0["reconnectionTime"] as? Double == 0.3 })
        #expect(objects.strings("id") == decimalIDs(1...10))
        #expect(objects.last?["code"] as? String == "stream_ended" && objects.last?["willRetry"] as? Bool == false)
    }

    @Test func resetAfterIsAnOptionAndItsZeroResetsOnEveryOpen() async throws {
        let server = try startServer()
        defer { server.stop() }
        // Every connection is cut after its first event: with the default rule (10 s) the
        // delays grow, with `--reset-after 0` each open starts over at the first delay.
        let url = server.url("/sse?count=6&cut=30&end=204").absoluteString
        let growing = try await runner.rtcat(["--backoff-initial", "0.1", "--backoff-max", "1", url])
        let reset = try await runner.rtcat(["--backoff-initial", "0.1", "--backoff-max", "1", "--reset-after", "0", url])
        func delays(_ r: RtcatTests.Run) -> [Double] { r.objects.compactMap { $0["retryIn"] as? Double } }
        // Decorrelated jitter: the first delay lies in [0.1, 0.3] s; the fifth in a row at least 0.5 s.
        #expect(delays(reset).count == 5 && delays(reset).allSatisfy { $0 <= 0.3 }, "\(delays(reset))")
        #expect(delays(growing).count == 5 && (delays(growing).last ?? 0) >= 0.5, "\(delays(growing))")
        let usage = try await runner.rtcat(["--reset-after", "-1", url])
        #expect(usage.status == 2)
    }

    @Test func commentsArePrintedWithTheFlag() async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.url("/sse?count=1&end=hold&ping_ms=50").absoluteString
        let rtcat = try ExampleProcess("rtcat", ["--comments", url])
        try await rtcat.waitForLine("a comment") { $0 == #"{"kind": "comment", "text": "ping"}"# }
        rtcat.signal(SIGTERM)
        _ = await rtcat.exitStatus()
        #expect(rtcat.lines.first?.hasPrefix(#"{"kind": "open""#) == true)
        #expect(rtcat.lines.dropFirst().first == #"{"kind": "event", "type": "message", "data": "event 1", "id": "1"}"#)
        let usage = try await runner.rtcat(["--comments", server.wsURL("/ws").absoluteString])
        #expect(usage.status == 2)
    }

    @Test func sighupReconnectsAtOnceWithTheCursor() async throws {
        let server = try startServer()
        defer { server.stop() }
        let url = server.url("/sse?count=2&end=hold").absoluteString
        let rtcat = try ExampleProcess("rtcat", ["--backoff-initial", "30", "--backoff-max", "30", url])
        try await rtcat.waitForLine("the second event") { $0.contains(#""id": "2""#) }
        rtcat.signal(SIGHUP)
        try await rtcat.waitForLine("the second open") { $0.contains(#""kind": "open""#) && $0.contains(#""attempt": 2"#) }
        rtcat.signal(SIGTERM)
        _ = await rtcat.exitStatus()
        let kinds = rtcat.lines.compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["kind"] as? String
        }
        // No error: a restart is not a failure, and with a 30 s backoff it came at once.
        #expect(kinds.prefix(5) == ["open", "event", "event", "closed", "open"], "\(rtcat.lines)")
        #expect(server.requests(path: "/sse").last?.headers["Last-Event-ID"] == "2")
    }
}

import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// `rtcat llm` as a child process against the test server's fake LLM endpoints: the JSON
/// lines, the exit codes, and that the request is sent exactly once whatever happens.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RtcatLLMTests {
    static let body = #"{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}"#

    func run(_ server: TestServer, _ pathAndQuery: String, _ extra: [String] = []) async throws -> RtcatTests.Run {
        try await RtcatTests().rtcat(["llm"] + extra + ["-d", Self.body, server.url(pathAndQuery).absoluteString])
    }

    static func server() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    @Test func openAITextPrintsEachDeltaThenFinished() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/openai?split=1", ["-H", "Authorization: Bearer sk-test"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds() == Array(repeating: "delta", count: LLMReplyOptions.pieces.count) + ["finished"])
        #expect(r.objects.compactMap { $0["kind"] as? String == "delta" ? $0["text"] as? String : nil } == LLMReplyOptions.pieces)
        #expect(r.lines.last == #"{"kind": "finished", "reason": "stop", "text": "Héllo, wörld! 日本語 🌍 \"ok\"\n", "usage": {"inputTokens": 12, "outputTokens": 10, "totalTokens": 22}}"#)
        let requests = server.requests(path: "/llm/openai")
        #expect(requests.count == 1)
        #expect(requests.first?.method == "POST")
        #expect(requests.first?.bodyText == Self.body)
        #expect(requests.first?.headers["Authorization"] == "Bearer sk-test")
        #expect(!r.stdout.contains("sk-test") && !r.stderr.contains("sk-test"))
    }

    @Test func anthropicToolCallsArePrintedOnceComplete() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/anthropic?reply=tools", ["--format", "anthropic"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == [
            #"{"kind": "delta", "text": "Let me check."}"#,
            #"{"kind": "tool_call", "index": 0, "id": "call_weather", "name": "get_weather", "arguments": "{\"city\": \"Zürich\"}"}"#,
            #"{"kind": "tool_call", "index": 1, "id": "call_time", "name": "get_time", "arguments": "{\"tz\": \"CET\"}"}"#,
            #"{"kind": "finished", "reason": "tool_use", "text": "Let me check.", "usage": {"inputTokens": 12, "outputTokens": 6}}"#,
        ])
        #expect(server.requests(path: "/llm/anthropic").count == 1)
    }

    @Test func coalescedOutputPrintsFewerLinesWithTheSameText() async throws {
        let server = try Self.server()
        defer { server.stop() }
        // 60 deltas 5 ms apart (about 300 ms) printed at most every 100 ms.
        let r = try await run(server, "/llm/openai?count=60&interval_ms=5", ["--coalesce", "0.1"])
        #expect(r.status == 0, "\(r.stderr)")
        let deltas = r.objects.filter { $0["kind"] as? String == "delta" }.compactMap { $0["text"] as? String }
        let expected = LLMReplyOptions(format: .openAI, query: ["count": "60"]).text()
        #expect(deltas.joined() == expected)
        // About 3 batches on a quiet machine; far fewer than the 60 deltas unless the server
        // is slowed to one delta per 50 ms.
        #expect(deltas.count >= 2 && deltas.count < 30, "\(deltas.count) batches")
        #expect(r.objects.last?["text"] as? String == expected)
    }

    @Test(arguments: ["openai", "anthropic"]) func inStreamErrorExitsOne(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?reply=error", ["--format", format])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.kinds() == ["delta", "delta", "delta", "error"])
        let error = try #require(r.objects.last)
        #expect(error["code"] as? String == "stream_error")
        #expect(error["message"] as? String == (format == "openai" ? "stream_error: openai server_error" : "stream_error: anthropic overloaded_error"))
        #expect((error["body"] as? String)?.contains(format == "openai" ? "The server had an error" : "Overloaded") == true)
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    @Test(arguments: [429, 500]) func httpErrorExitsOneWithItsStatusBodyAndRetryAfter(status: Int) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/openai?status=\(status)&retry_after=7")
        #expect(r.status == 1, "\(r.stderr)")
        let body = LLMReplyOptions(format: .openAI).errorBody(status: status)
        #expect(r.lines == [
            #"{"kind": "error", "code": "http_status", "message": "http_status (\#(status))", "status": \#(status), "body": \#(Self.quoted(body)), "retryAfter": 7}"#
        ])
        #expect(server.requests(path: "/llm/openai").count == 1)
    }

    @Test(arguments: ["openai", "anthropic"]) func aTruncatedReplyExitsOneAfterWhatArrived(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?end=truncate", ["--format", format])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.kinds() == Array(repeating: "delta", count: LLMReplyOptions.pieces.count) + ["error"])
        #expect(r.objects.last?["code"] as? String == "truncated")
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    /// The server holds the connection open after the terminator: rtcat still finishes at
    /// once (well within the 30 s the runner allows) and exits 0.
    @Test(arguments: ["openai", "anthropic"]) func aHeldConnectionAfterTheTerminatorStillFinishes(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let started = ContinuousClock.now
        let r = try await run(server, "/llm/\(format)?end=hold", ["--format", format])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds().last == "finished")
        #expect(started.duration(to: .now) < .seconds(10))
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    /// `text` as the JSON string rtcat writes (RFC 8259 escapes for `"` and `\\`).
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Nothing listens: the connection fails before the request is sent; after the allowed
    /// retries rtcat gives up (it does not wait forever) and says why.
    @Test func anUnreachableServerIsAnErrorAfterTheRetries() async throws {
        let closed = try ClosedPort()
        let url = "http://127.0.0.1:\(closed.port)/llm/openai"
        let r = try await RtcatTests().rtcat(["llm", "--max-retries", "0", "-d", Self.body, url])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.kinds() == ["error"])
        #expect(r.objects.last?["code"] as? String == "retries_exhausted")
        #expect((r.objects.last?["cause"] as? String)?.hasPrefix("network") == true, "\(r.stdout)")
    }

    @Test func usageErrorsExitTwo() async throws {
        for arguments in [
            ["llm", "http://127.0.0.1:1/x"],
            ["llm", "-d", "{}"],
            ["llm", "--format", "gemini", "-d", "{}", "http://127.0.0.1:1/x"],
            ["llm", "-d", "{}", "ws://127.0.0.1:1/x"],
            ["llm", "-d", "{}", "--coalesce", "0", "http://127.0.0.1:1/x"],
            ["llm", "-d", "{}", "-H", "no colon", "http://127.0.0.1:1/x"],
            ["llm", "-d", "{}", "--max-retries", "-1", "http://127.0.0.1:1/x"],
        ] {
            let r = try await RtcatTests().rtcat(arguments)
            #expect(r.status == 2, "\(arguments)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains("usage: rtcat llm"))
        }
    }
}

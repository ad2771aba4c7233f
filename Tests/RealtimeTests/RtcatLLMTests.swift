import Foundation
import RealtimeTestServer
import RealtimeTestSupport
import Testing

/// `rtcat llm` as a child process against the test server's fake LLM endpoints: the JSON
/// lines, the exit codes, and that the request is sent exactly once whatever happens.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RtcatLLMTests {
    static let body = #"{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}"#

    /// rtcat's run; one killed at its timeout also says how far the server got with it.
    func run(_ server: TestServer, _ pathAndQuery: String, _ extra: [String] = [], timeout: Double = 30) async throws -> RtcatTests.Run {
        let run = try await RtcatTests().rtcat(["llm"] + extra + ["-d", Self.body, server.url(pathAndQuery).absoluteString], timeout: timeout)
        if run.timedOut {
            let stats = server.statistics
            Issue.record("rtcat killed after \(timeout) s: the server accepted \(stats.connectionsAccepted) connection(s), \(stats.activeConnections) still open, and read \(server.requests.count) request(s); the sockets on its port:\n\(ProcessResources.tcpTable(port: server.port))")
        }
        return run
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
        let deltas = r.objects.kind("delta").strings("text")
        let expected = LLMReplyOptions(format: .openAI, query: ["count": "60"]).text()
        #expect(deltas.joined() == expected)
        // About 3 batches on a quiet machine; far fewer than the 60 deltas unless the server
        // is slowed to one delta per 50 ms.
        #expect(deltas.count >= 2 && deltas.count < 30, "\(deltas.count) batches")
        #expect(r.objects.last?["text"] as? String == expected)
    }

    @Test(arguments: ["openai", "anthropic", "responses", "gemini"]) func inStreamErrorExitsOne(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?reply=error", ["--format", format])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.kinds() == ["delta", "delta", "delta", "error"])
        let error = try #require(r.objects.last)
        #expect(error["code"] as? String == "stream_error")
        let detail = ["openai": "openai server_error", "anthropic": "anthropic overloaded_error", "responses": "openai-responses server_error", "gemini": "gemini UNAVAILABLE"][format]!
        #expect(error["message"] as? String == "stream_error: \(detail)")
        let body = ["openai": "The server had an error", "anthropic": "Overloaded", "responses": "The server had an error", "gemini": "overloaded"][format]!
        #expect((error["body"] as? String)?.contains(body) == true)
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    /// `--background`: the body asks for background mode, and a reply cut three times is
    /// printed whole, each delta once, after one POST and three GETs from the cursor.
    @Test func aBackgroundReplyCutThreeTimesIsPrintedWhole() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let whole = try await run(server, "/v1/responses?count=6", ["--format", "responses"])
        #expect(whole.status == 0, "\(whole.stderr)")
        server.clearRequests()
        let r = try await run(server, "/v1/responses?count=6&cut_after=4,6,8", ["--format", "responses", "--background"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == whole.lines)
        let posts = server.requests(path: "/v1/responses")
        #expect(posts.count == 1)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(posts[0].body)) as? [String: Any])
        #expect(body["background"] as? Bool == true && body["stream"] as? Bool == true)
        #expect(server.requests.filter { $0.path.hasPrefix("/v1/responses/") }.map { $0.query["starting_after"] } == ["4", "6", "8"])
        let usage = try await RtcatTests().rtcat(["llm", "--background", "-d", "{}", server.url("/v1/responses").absoluteString])
        #expect(usage.status == 2 && usage.stderr.contains("--background needs --format responses"))
    }

    /// Reasoning is printed apart from the answer, fragment by fragment, in the kind the
    /// format has; the finished line carries it beside the text.
    @Test(arguments: ["openai", "anthropic", "responses", "gemini"]) func reasoningIsPrintedApart(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?reasoning=1&count=2", ["--format", format])
        #expect(r.status == 0, "\(r.stderr)")
        let type = format == "responses" || format == "gemini" ? "summary" : "text"
        var expected = LLMReplyOptions.reasoningPieces.map { #"{"kind": "reasoning", "block": 0, "type": "\#(type)", "text": \#(Self.quoted($0))}"# }
        let signature = #"{"kind": "reasoning", "block": 0, "type": "signature", "text": "\#(LLMReplyOptions.reasoningSignature)"}"#
        if format == "anthropic" { expected.append(signature) }
        expected.append(#"{"kind": "delta", "text": "Hé"}"#)
        if format == "gemini" { expected.append(signature) }
        expected.append(#"{"kind": "delta", "text": "llo"}"#)
        #expect(Array(r.lines.dropLast()) == expected)
        let finished = try #require(r.objects.last)
        #expect(finished["kind"] as? String == "finished")
        #expect(finished["text"] as? String == "Héllo")
        #expect(finished["reasoning"] as? String == LLMReplyOptions.reasoningPieces.joined())
    }

    /// The Responses and Gemini replies as the documented sequences go: tool calls whole,
    /// the finish as the format says it, the usage with reasoning tokens (Gemini counts them
    /// apart from the output, the Responses API within it).
    @Test(arguments: ["responses", "gemini"]) func toolCallsAndUsageInTheNewFormats(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?reply=tools&reasoning=1", ["--format", format])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.kinds().filter { $0 != "reasoning" } == ["delta", "tool_call", "tool_call", "finished"])
        let arguments = LLMReplyOptions.toolCalls.map { $0.arguments.joined() }
        #expect(r.objects.strings("arguments") == (format == "gemini" ? arguments.map { $0.replacingOccurrences(of: ": ", with: ":") } : arguments))
        #expect(r.objects.strings("id") == (format == "gemini" ? ["", ""] : LLMReplyOptions.toolCalls.map(\.id)))
        let reason = format == "gemini" ? "STOP" : "completed"
        #expect(r.lines.last == #"{"kind": "finished", "reason": "\#(reason)", "text": "Let me check.", "reasoning": "Thinking about the réply…", "usage": {\#(format == "responses" ? #""cachedInputTokens": 0, "# : "")"inputTokens": 12, "outputTokens": \#(format == "gemini" ? 6 : 8), "reasoningTokens": 2, "totalTokens": 20}}"#)
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

    @Test(arguments: ["openai", "anthropic", "responses"]) func aTruncatedReplyExitsOneAfterWhatArrived(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?end=truncate", ["--format", format])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.kinds() == Array(repeating: "delta", count: LLMReplyOptions.pieces.count) + ["error"])
        #expect(r.objects.last?["code"] as? String == "truncated")
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    /// The server holds the connection open after the terminator: rtcat still finishes at
    /// the terminator and exits 0. The server never lets go and rtcat's idle timeout is
    /// longer than the runner's 10 s hang guard (which the runner checks), so only the
    /// terminator can end it.
    @Test(arguments: ["openai", "anthropic", "responses"]) func aHeldConnectionAfterTheTerminatorStillFinishes(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?end=hold", ["--format", format, "--idle-timeout", "60"], timeout: 10)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.timedOut)
        #expect(r.kinds().last == "finished")
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    /// An event the format does not define is printed as `unrecognized` and skipped: the
    /// tool calls after it are whole, and the reply finishes (exit 0).
    @Test(arguments: ["openai", "anthropic", "responses", "gemini"]) func anUnknownEventIsSkipped(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/\(format)?reply=tools&unknown=1", ["--format", format])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.kinds() == ["delta", "unrecognized", "tool_call", "tool_call", "finished"])
        let name = ["openai": "keepalive", "anthropic": "content_block_summary", "responses": "response.future_event", "gemini": "executableCode"][format]!
        #expect(r.lines[1] == #"{"kind": "unrecognized", "event": "\#(name)"}"#)
        let arguments = LLMReplyOptions.toolCalls.map { $0.arguments.joined() }
        #expect(r.objects.strings("arguments") == (format == "gemini" ? arguments.map { $0.replacingOccurrences(of: ": ", with: ":") } : arguments))
    }

    /// Invalid UTF-8 in the reply fails it (exit 1, `invalid_utf8`) after the text before it;
    /// `--lenient-utf8` prints U+FFFD in its place and finishes.
    @Test(arguments: ["openai", "anthropic"]) func invalidUTF8IsAnErrorUnlessLenient(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let strict = try await run(server, "/llm/\(format)?invalid_utf8=1", ["--format", format])
        #expect(strict.status == 1, "\(strict.stdout) \(strict.stderr)")
        #expect(strict.kinds() == ["delta", "error"])
        let error = try #require(strict.objects.last)
        #expect(error["code"] as? String == "request_not_repeatable")
        #expect((error["cause"] as? String)?.hasPrefix("invalid_utf8") == true, "\(error)")
        let lenient = try await run(server, "/llm/\(format)?invalid_utf8=1", ["--format", format, "--lenient-utf8"])
        #expect(lenient.status == 0, "\(lenient.stdout) \(lenient.stderr)")
        #expect(lenient.objects.last?["text"] as? String == LLMReplyOptions(format: .openAI).text().replacingOccurrences(of: "llo", with: "l\u{FFFD}o"))
        #expect(server.requests(path: "/llm/\(format)").count == 2)
    }

    /// A server that streams without end: once the reply passes the limit rtcat prints
    /// nothing more of it, closes the connection and exits 1 with `message_too_large`, long
    /// before the server's 256 MiB would have ended the stream. (The 64 MiB default works
    /// the same way; a smaller limit keeps the test's output small.)
    @Test func theReplyLimitEndsAnEndlessStream() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let limitBytes = 1 << 20
        let r = try await run(server, "/llm/openai?endless=1", ["--max-reply-bytes", String(limitBytes)])
        #expect(r.status == 1, "\(r.stderr)")
        let printed = r.objects.compactMap { $0["kind"] as? String == "delta" ? $0["text"] as? String : nil }
        let printedBytes = printed.reduce(0) { $0 + $1.utf8.count }
        #expect(printedBytes <= limitBytes)
        #expect(printedBytes > limitBytes - (1 << 16) - 64, "everything up to the limit was printed")
        #expect(r.kinds().last == "error")
        #expect(r.objects.last?["code"] as? String == "message_too_large")
        #expect(r.objects.last?["message"] as? String == "message_too_large: the reply exceeded \(limitBytes) bytes")
        #expect(r.kinds().filter { $0 == "error" }.count == 1)
    }

    /// A 200 answer with a JSON body is `invalid_content_type`, and the body says why.
    @Test func aJSONAnswerPrintsItsBody() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let r = try await run(server, "/llm/openai?status=200")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.lines == [
            #"{"kind": "error", "code": "invalid_content_type", "message": "invalid_content_type (200): Content-Type application/json", "status": 200, "body": \#(Self.quoted(LLMReplyOptions(format: .openAI).errorBody(status: 200)))}"#
        ])
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
            ["llm", "--format", "cohere", "-d", "{}", "http://127.0.0.1:1/x"],
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

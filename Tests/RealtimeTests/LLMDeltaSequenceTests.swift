import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer
import Testing

/// `client.deltas(format:)` against the test server's fake LLM endpoints on loopback:
/// real SSE over a socket, both formats, the end of a reply and its failures. (That a reply's
/// end releases a connection the server holds is on the embedded stack: `EmbeddedLLMTests`.)
@Suite(.serialized, .timeLimit(.minutes(1))) struct LLMDeltaSequenceTests {
    static let body = Array(#"{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}"#.utf8)

    /// A finite LLM client for the format named in the path (its terminator).
    static func client(_ server: TestServer, _ pathAndQuery: String) throws -> RealtimeClient {
        let terminator = pathAndQuery.hasPrefix("/llm/anthropic") ? AnthropicMessagesDecoder.terminator : OpenAIChatDecoder.terminator
        var configuration = RealtimeClient.Configuration.llm(body: body, terminator: terminator)
        configuration.connectTimeout = .seconds(5)
        return try RealtimeClient(url: server.url(pathAndQuery), configuration: configuration)
    }

    static func collect<D: LLMStreamDecoder>(_ client: RealtimeClient, _ format: D) async -> [LLMDelta] {
        var deltas: [LLMDelta] = []
        for await delta in client.deltas(format: format) { deltas.append(delta) }
        return deltas
    }

    static func server() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    @Test(arguments: ["openai", "anthropic"]) func textReplyCutAcrossReadsArrivesWhole(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?split=1")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        #expect(deltas.compactMap(\.text) == LLMReplyOptions.pieces)
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text())
        #expect(transcript.finishReason == (format == "openai" ? .stop : .endTurn))
        #expect(transcript.usage?.inputTokens == 12)
        #expect(transcript.usage?.outputTokens == LLMReplyOptions.pieces.count)
        #expect(transcript.error == nil)
        let requests = server.requests(path: "/llm/\(format)")
        #expect(requests.count == 1)
        #expect(requests.first?.method == "POST")
        #expect(requests.first?.body == Self.body)
        #expect(requests.first?.headers["Content-Type"] == "application/json")
    }

    @Test(arguments: ["openai", "anthropic"]) func toolCallsAreCompleteOnceEach(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?reply=tools")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        let expected = LLMReplyOptions.toolCalls.enumerated().map {
            LLMToolCall(index: $0.offset, id: $0.element.id, name: $0.element.name, arguments: $0.element.arguments.joined(), isComplete: true)
        }
        #expect(completed == expected)
        #expect(transcript.text == LLMReplyOptions.toolPreamble)
        #expect(transcript.finishReason == (format == "openai" ? .toolCalls : .toolUse))
    }

    /// An event the format does not define (a proxy's keep-alive, a newer Anthropic event
    /// type) is an `unrecognized` delta: the reply goes on and finishes.
    @Test(arguments: ["openai", "anthropic"]) func anUnknownEventDoesNotEndTheReply(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?reply=tools&unknown=1")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        #expect(deltas.contains(.unrecognized(format == "openai" ? "keepalive" : "content_block_summary")))
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed.map(\.id) == LLMReplyOptions.toolCalls.map(\.id))
        #expect(transcript.isFinished)
        #expect(transcript.unrecognizedEvents == 1)
    }

    /// The presets are strict: a reply with invalid UTF-8 fails with `invalid_utf8` after
    /// the text before it; lenient, it finishes with U+FFFD in place of the bad byte.
    @Test(arguments: ["openai", "anthropic"]) func invalidUTF8FailsTheReplyUnlessLenient(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let strict = try Self.client(server, "/llm/\(format)?invalid_utf8=1")
        let deltas = format == "openai" ? await Self.collect(strict, .openAI) : await Self.collect(strict, .anthropic)
        #expect(deltas.compactMap(\.text) == ["Hé"])
        guard case .error(let error) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(error.code == .requestNotRepeatable && error.underlying?.code == .invalidUTF8, "\(error)")
        #expect(server.requests(path: "/llm/\(format)").count == 1, "the POST is not repeated")

        var configuration = strict.configuration
        configuration.sse.strictUTF8 = false
        let lenient = try RealtimeClient(url: server.url("/llm/\(format)?invalid_utf8=1"), configuration: configuration)
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: format == "openai" ? await Self.collect(lenient, .openAI) : await Self.collect(lenient, .anthropic))
        #expect(transcript.isFinished)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text().replacingOccurrences(of: "llo", with: "l\u{FFFD}o"))
    }

    /// A 200 answer with a JSON body (a gateway's error) is `invalid_content_type` that keeps
    /// the body's excerpt, as an error status does.
    @Test func aJSONAnswerKeepsItsBody() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let deltas = await Self.collect(try Self.client(server, "/llm/openai?status=200"), .openAI)
        guard case .error(let error) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(deltas.count == 1)
        #expect(error.code == .invalidContentType)
        #expect(error.status == 200)
        #expect(error.bodyExcerpt == LLMReplyOptions(format: .openAI).errorBody(status: 200))
    }

    @Test(arguments: ["openai", "anthropic"]) func inStreamErrorIsTheLastDelta(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?reply=error")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        #expect(deltas.dropLast().compactMap(\.text) == Array(LLMReplyOptions.pieces.prefix(3)))
        guard case .error(let failure) = deltas.last else {
            Issue.record("no error delta: \(deltas)")
            return
        }
        #expect(failure.code == .streamError)
        #expect(failure.detail == (format == "openai" ? "openai server_error" : "anthropic overloaded_error"))
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    @Test(arguments: ["openai", "anthropic"], [429, 500]) func httpErrorIsTheLastDeltaWithItsBody(format: String, status: Int) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?status=\(status)&retry_after=7")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        guard case .error(let failure) = deltas.last, deltas.count == 1 else {
            Issue.record("expected one error delta: \(deltas)")
            return
        }
        #expect(failure.code == .httpStatus)
        #expect(failure.status == status)
        #expect(failure.retryAfter == .seconds(7))
        let body = LLMReplyOptions(format: format == "openai" ? .openAI : .anthropic).errorBody(status: status)
        #expect(failure.bodyExcerpt == body)
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }

    /// A reply that stops without its terminator: what arrived, then `truncated`.
    @Test(arguments: ["openai", "anthropic"]) func aReplyWithoutItsTerminatorIsTruncated(format: String) async throws {
        let server = try Self.server()
        defer { server.stop() }
        let client = try Self.client(server, "/llm/\(format)?end=truncate")
        let deltas = format == "openai" ? await Self.collect(client, .openAI) : await Self.collect(client, .anthropic)
        #expect(deltas.compactMap(\.text) == LLMReplyOptions.pieces)
        guard case .error(let failure) = deltas.last else {
            Issue.record("no error delta: \(deltas)")
            return
        }
        #expect(failure.code == .truncated)
        #expect(server.requests(path: "/llm/\(format)").count == 1)
    }
}


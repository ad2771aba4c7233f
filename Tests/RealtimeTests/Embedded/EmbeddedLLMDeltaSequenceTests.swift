#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
@testable import RealtimeTestServer
import RealtimeTesting
import Testing

/// `client.deltas(format:)` over the production SSE connection on the embedded stack, the
/// server playing the test server's fake LLM replies (``LLMReplyScript``) write by write: every
/// format (chat completions, Anthropic, Responses, Gemini), how a reply ends and how it fails. (The same replies over a socket, with the request
/// as the server saw it: `LLMDeltaSequenceTests`.)
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMDeltaSequenceTests {
    static let body = Array(#"{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}"#.utf8)

    /// A finite LLM client for `format` (its terminator), with the test server's request body.
    static func client(_ format: String, configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws -> EmbeddedClient {
        try EmbeddedClient("http://llm.test/v1/chat") { c in
            EmbeddedClientEndOfStreamTests.llm(body: body, terminator: LLMDeltaSequenceTestsSupport.terminator(format))(&c)
            configure(&c)
        }
    }

    /// The reply `query` asks the fake endpoint for, played on the first attempt's server; the
    /// deltas until the reply ended.
    static func deltas(_ t: EmbeddedClient, _ format: String, _ query: [String: String] = [:]) async throws -> [LLMDelta] {
        let collecting = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, format: format) }
        let server = try await t.sseAttempt(1)
        server.play(LLMReplyScript(options: LLMReplyOptions(format: try #require(LLMReplyOptions.Format(rawValue: format)), query: query)))
        return await t.pumping { await collecting.value }
    }

    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func textReplyCutEveryThreeBytesArrivesWhole(format: String) async throws {
        let t = try Self.client(format)
        let deltas = try await Self.deltas(t, format, ["split": "1"])
        LLMDeltaSequenceTestsSupport.expectWholeTextReply(deltas, format: format)
        let request = try #require(t.sse(0)?.request)
        #expect(request.method == "POST" && request.body == Self.body)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(t.sse(0)?.ended == true && t.connectionCount == 1)
    }

    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func toolCallsAreCompleteOnceEach(format: String) async throws {
        let deltas = try await Self.deltas(try Self.client(format), format, ["reply": "tools"])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        // Gemini sends each call whole, without an id, its args an object the decoder encodes.
        let gemini = format == "gemini"
        let expected = LLMReplyOptions.toolCalls.enumerated().map {
            let arguments = $0.element.arguments.joined()
            return LLMToolCall(
                index: $0.offset, id: gemini ? "" : $0.element.id, name: $0.element.name,
                arguments: gemini ? arguments.replacingOccurrences(of: ": ", with: ":") : arguments, isComplete: true)
        }
        #expect(completed == expected)
        #expect(transcript.text == LLMReplyOptions.toolPreamble)
        let finish: LLMFinishReason = ["openai": .toolCalls, "anthropic": .toolUse, "responses": "completed", "gemini": "STOP"][format]!
        #expect(transcript.finishReason == finish)
    }

    /// An event the format does not define (a proxy's keep-alive, a newer event type, a
    /// Gemini part of another kind) is an `unrecognized` delta: the reply goes on and finishes.
    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func anUnknownEventDoesNotEndTheReply(format: String) async throws {
        let deltas = try await Self.deltas(try Self.client(format), format, ["reply": "tools", "unknown": "1"])
        let unknown = ["openai": "keepalive", "anthropic": "content_block_summary", "responses": "response.future_event", "gemini": "executableCode"]
        #expect(deltas.contains(.unrecognized(unknown[format]!)))
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed.map(\.name) == LLMReplyOptions.toolCalls.map(\.name))
        #expect(transcript.isFinished)
        #expect(transcript.unrecognizedEvents == 1)
    }

    /// The presets are strict: a reply with invalid UTF-8 fails with `invalid_utf8` after the
    /// text before it, and the POST is not sent again.
    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func invalidUTF8FailsAStrictReply(format: String) async throws {
        let t = try Self.client(format)
        let deltas = try await Self.deltas(t, format, ["invalid_utf8": "1"])
        #expect(deltas.compactMap(\.text) == ["Hé"])
        guard case .error(let error) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(error.code == .requestNotRepeatable && error.underlying?.code == .invalidUTF8, "\(error)")
        #expect(t.connectionCount == 1, "the POST is not repeated")
    }

    /// Lenient, the same reply finishes with U+FFFD in place of the bad byte.
    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func invalidUTF8IsReplacedInALenientReply(format: String) async throws {
        let t = try Self.client(format) { $0.sse.strictUTF8 = false }
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: try await Self.deltas(t, format, ["invalid_utf8": "1"]))
        #expect(transcript.isFinished && transcript.error == nil)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text().replacingOccurrences(of: "llo", with: "l\u{FFFD}o"))
    }

    /// A 200 answer with a JSON body (a gateway's error) is `invalid_content_type` that keeps
    /// the body's excerpt, as an error status does.
    @Test func aJSONAnswerKeepsItsBody() async throws {
        let t = try Self.client("openai")
        let deltas = try await Self.deltas(t, "openai", ["status": "200"])
        guard case .error(let error) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(deltas.count == 1)
        #expect(error.code == .invalidContentType)
        #expect(error.status == 200)
        #expect(error.bodyExcerpt == LLMReplyOptions(format: .openAI).errorBody(status: 200))
        #expect(t.connectionCount == 1)
    }

    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func inStreamErrorIsTheLastDelta(format: String) async throws {
        let t = try Self.client(format)
        let deltas = try await Self.deltas(t, format, ["reply": "error"])
        #expect(deltas.dropLast().compactMap(\.text) == Array(LLMReplyOptions.pieces.prefix(3)))
        guard case .error(let failure) = deltas.last else { Issue.record("no error delta: \(deltas)"); return }
        #expect(failure.code == .streamError)
        #expect(failure.detail == ["openai": "openai server_error", "anthropic": "anthropic overloaded_error",
                                   "responses": "openai-responses server_error", "gemini": "gemini UNAVAILABLE"][format])
        #expect(t.connectionCount == 1)
    }

    @Test(arguments: ["openai", "anthropic"], [429, 500]) func httpErrorIsTheLastDeltaWithItsBody(format: String, status: Int) async throws {
        let t = try Self.client(format)
        let deltas = try await Self.deltas(t, format, ["status": "\(status)", "retry_after": "7"])
        guard case .error(let failure) = deltas.last, deltas.count == 1 else { Issue.record("expected one error delta: \(deltas)"); return }
        #expect(failure.code == .httpStatus)
        #expect(failure.status == status)
        #expect(failure.retryAfter == .seconds(7))
        #expect(failure.bodyExcerpt == LLMReplyOptions(format: try #require(LLMReplyOptions.Format(rawValue: format))).errorBody(status: status))
        #expect(t.connectionCount == 1)
    }

    /// An error answer whose body stalls after its head still ends the reply with its status,
    /// the excerpt so far and `Retry-After`, within a second of the head (not at the idle
    /// timeout, and not as a request that cannot be repeated).
    @Test func anErrorAnswerWhoseBodyStallsEndsWithItsStatus() async throws {
        let t = try Self.client("openai")
        let collecting = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, format: "openai") }
        let server = try await t.sseAttempt(1)
        server.respond(status: 429, headers: [("Retry-After", "7"), ("Content-Type", "application/json")])
        server.send(#"{"error":{"message":"Rate"#)
        t.advance(by: RealtimeError.bodyExcerptWait)
        let deltas = await t.pumping { await collecting.value }
        guard case .error(let failure) = deltas.last, deltas.count == 1 else { Issue.record("expected one error delta: \(deltas)"); return }
        #expect(failure.code == .httpStatus)
        #expect(failure.status == 429)
        #expect(failure.retryAfter == .seconds(7))
        #expect(failure.bodyExcerpt == #"{"error":{"message":"Rate"#)
        #expect(t.connectionCount == 1)
    }

    /// A 204 answer ends the reply empty: no delta, no error, no second request, and the
    /// client closed as after a finished reply.
    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func aNoContentAnswerEndsTheReplyEmpty(format: String) async throws {
        let t = try Self.client(format)
        let collecting = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, format: format) }
        let server = try await t.sseAttempt(1)
        server.respond(status: 204, headers: [])
        server.finish()
        let deltas = await t.pumping { await collecting.value }
        #expect(deltas.isEmpty)
        #expect(t.connectionCount == 1)
        #expect(t.client.state == .closed(nil))
    }

    /// A reply that stops without its terminator: what arrived, then `truncated`.
    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func aReplyWithoutItsTerminatorIsTruncated(format: String) async throws {
        let t = try Self.client(format)
        let deltas = try await Self.deltas(t, format, ["end": "truncate"])
        #expect(deltas.compactMap(\.text) == LLMReplyOptions.pieces)
        guard case .error(let failure) = deltas.last else { Issue.record("no error delta: \(deltas)"); return }
        #expect(failure.code == .truncated)
        #expect(t.connectionCount == 1)
    }
}

extension EmbeddedSSEServer {
    /// Plays a fake LLM reply: its head, each write as one chunk, then its end (a clean end,
    /// a connection held open, or a reset).
    func play(_ reply: LLMReplyScript) {
        respond(status: reply.status, headers: reply.headers.fields.map { ($0.name, $0.value) })
        for write in reply.events.joined() { send(write) }
        switch reply.end {
        case .close: finish()
        case .hold: break
        case .abort: reset()
        }
    }
}
#endif

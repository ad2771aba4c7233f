#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
@testable import RealtimeTestServer
import RealtimeTesting
import Testing

/// How an LLM reply ends, over the production SSE connection on the embedded stack, as the
/// LLM streaming guide says: at the format's end marker though the server holds the
/// connection open, with the cause of a failure beneath the last delta, without a delta for a
/// failure the client retries, and with the client closed when the loop is left early.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMEndTests {
    static func client(_ format: String) throws -> EmbeddedClient {
        try EmbeddedLLMDeltaSequenceTests.client(format)
    }

    /// Every format's reply stops at its end marker, whole, though the server keeps the connection open.
    @Test(arguments: LLMDeltaSequenceTestsSupport.formats) func theEndMarkerEndsAReplyOnAHeldConnection(format: String) async throws {
        let t = try Self.client(format)
        let deltas = try await EmbeddedLLMDeltaSequenceTests.deltas(t, format, ["end": "hold"])
        LLMDeltaSequenceTestsSupport.expectWholeTextReply(deltas, format: format)
        let last = try #require(deltas.last)
        #expect([.finish(LLMDeltaSequenceTestsSupport.finishReason(format)), .usage(LLMUsage())].contains { Self.sameCase(last, $0) })
        t.run()
        #expect(t.sse(0)?.ended == true, "released, though the server holds it open")
        #expect(t.connectionCount == 1)
    }

    /// Whether two deltas are the same case (a finish or a usage, whatever its values).
    static func sameCase(_ a: LLMDelta, _ b: LLMDelta) -> Bool {
        switch (a, b) {
        case (.finish, .finish), (.usage, .usage): true
        default: false
        }
    }

    /// A Responses reply stopped early (`response.incomplete`) ends with its reason, then its usage, on a held connection.
    @Test(arguments: ["max_output_tokens", "content_filter"]) func anIncompleteResponsesReplyEndsWithItsReasonThenItsUsage(reason: String) async throws {
        let t = try Self.client("responses")
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAIResponses) }
        let server = try await t.openedSSE()
        for event in Self.responsesStart { server.event(event.data, type: event.type) }
        server.event(
            #"{"type":"response.incomplete","sequence_number":3,"response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"\#(reason)"},"usage":{"input_tokens":5,"output_tokens":16,"total_tokens":21}}}"#,
            type: "response.incomplete")
        let deltas = await t.pumping { await reply.value }
        #expect(deltas == [.text("Once upon"), .finish(LLMFinishReason(reason)), .usage(LLMUsage(inputTokens: 5, outputTokens: 16, totalTokens: 21))])
        t.run()
        #expect(t.sse(0)?.ended == true, "released, though the server holds it open")
    }

    /// A Responses reply's first events: created, a message item, one text delta (sequence numbers 0 to 2).
    static let responsesStart: [(type: String, data: String)] = [
        ("response.created", #"{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}"#),
        ("response.output_item.added",
         #"{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#),
        ("response.output_text.delta",
         #"{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Once upon"}"#),
    ]

    /// The resume of a cut Responses reply is a GET of the reply's id after the last sequence number, with the POST's token and no body.
    @Test func theResumeIsAGetWithTheTokenAndNoBody() async throws {
        let t = try EmbeddedClient("http://llm.test/v1/responses") {
            $0 = .llm(body: EmbeddedLLMDeltaSequenceTests.body, headers: ["Authorization": "Bearer sk-test"], terminator: OpenAIResponsesDecoder.terminator)
            $0.networkMonitor = nil
            $0.backoff = .exponential(jitter: .none)
            $0.resume = .openAIResponses
        }
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAIResponses) }
        let post = try await t.openedSSE()
        for event in Self.responsesStart { post.event(event.data, type: event.type) }
        post.reset()
        await t.waitOutTheBackoff()
        let get = try await t.sseAttempt(2)
        #expect(get.request.method == "GET" && get.request.body == nil)
        #expect(get.request.url.absoluteString == "http://llm.test/v1/responses/resp_1?stream=true&starting_after=2")
        #expect(get.request.headers["Authorization"] == "Bearer sk-test")
        #expect(get.request.headers["Content-Type"] == nil, "no body, so no body header")
        #expect(get.request.lastEventID == nil)
        get.respond()
        get.event(#"{"type":"response.completed","sequence_number":3,"response":{"id":"resp_1","status":"completed"}}"#, type: "response.completed")
        #expect(await t.pumping { await reply.value } == [.text("Once upon"), .finish("completed")])
        #expect(t.connectionCount == 2)
    }

    /// A reply cut after the request went out ends with `request_not_repeatable`, the cut beneath it, after what arrived.
    @Test func aCutReplyEndsNotRepeatableWithTheCutBeneath() async throws {
        let t = try Self.client("openai")
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAI) }
        let server = try await t.openedSSE()
        server.send(EmbeddedLLMTests.chunk("Hel"))
        server.reset()
        let deltas = await t.pumping { await reply.value }
        #expect(deltas.dropLast() == [.text("Hel")])
        guard case .error(let error) = deltas.last else { Issue.record("no error delta: \(deltas)"); return }
        #expect(error.code == .requestNotRepeatable, "\(error)")
        #expect(error.underlying?.code == .network, "\(error)")
        #expect(t.connectionCount == 1, "the POST is not sent again")
    }

    /// A connection refused before the request left is retried and is no delta: the reply arrives whole.
    @Test func aRefusedConnectionIsRetriedWithoutADelta() async throws {
        let t = try Self.client("openai")
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAI) }
        try await t.sseAttempt(1).refuseConnection()
        await t.waitOutTheBackoff()
        let server = try await t.sseAttempt(2)
        server.play(LLMReplyScript(options: LLMReplyOptions(format: .openAI)))
        let deltas = await t.pumping { await reply.value }
        LLMDeltaSequenceTestsSupport.expectWholeTextReply(deltas, format: "openai")
        #expect(server.request.method == "POST" && server.request.body == EmbeddedLLMDeltaSequenceTests.body)
        #expect(t.connectionCount == 2)
    }

    /// A 401 answer is one last delta, `unauthorized`, with the 401 and its body beneath it.
    @Test func anUnauthorizedAnswerIsTheLastDeltaWithTheStatusBeneath() async throws {
        let t = try Self.client("openai")
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAI) }
        let server = try await t.sseAttempt(1)
        let body = #"{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}"#
        EmbeddedClientPolicyTests.answer(server, 401, body: body, type: "application/json")
        let deltas = await t.pumping { await reply.value }
        guard case .error(let error) = deltas.last, deltas.count == 1 else { Issue.record("expected one error delta: \(deltas)"); return }
        #expect(error.code == .unauthorized, "\(error)")
        #expect(error.underlying?.status == 401, "\(error)")
        #expect(error.underlying?.bodyExcerpt == body, "\(error)")
        #expect(t.connectionCount == 1)
    }

    /// Leaving the loop early closes the client: the connection is released and nothing is sent again.
    @Test func leavingTheLoopEarlyClosesTheClient() async throws {
        let t = try Self.client("openai")
        let first = Task { () -> LLMDelta? in
            for await delta in t.client.deltas(format: .openAI) { return delta }
            return nil
        }
        let server = try await t.openedSSE()
        server.send(EmbeddedLLMTests.chunk("Hi") + EmbeddedLLMTests.chunk(" there"))
        #expect(await t.pumping { await first.value } == .text("Hi"))
        await t.waitForState("closed") { if case .closed = $0 { true } else { false } }
        #expect(server.ended, "released, though the server holds it open")
        #expect(t.connectionCount == 1)
    }

    /// Leaving a loop over the coalesced deltas closes the client too: the connection is released.
    @Test func leavingACoalescedLoopClosesTheClient() async throws {
        let t = try Self.client("openai")
        let first = Task { () -> [LLMDelta]? in
            for await batch in t.client.deltas(format: .openAI).coalesced(every: .zero, clock: t.loop) { return batch }
            return nil
        }
        let server = try await t.openedSSE()
        server.send(EmbeddedLLMTests.chunk("Hi"))
        #expect(await t.pumping { await first.value } == [.text("Hi")])
        await t.waitForState("closed") { if case .closed = $0 { true } else { false } }
        #expect(server.ended, "released, though the server holds it open")
        #expect(t.connectionCount == 1)
    }
}
#endif

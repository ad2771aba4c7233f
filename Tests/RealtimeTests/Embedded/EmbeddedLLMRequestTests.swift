#if os(Linux)
import Foundation
import Realtime
import RealtimeCore
import RealtimeLLM
@testable import RealtimeTestServer
import RealtimeTesting
import Testing

/// Which requests an LLM reply sends, over the production SSE connection on the embedded
/// stack: the POST once more after a 401 with refreshed credentials, and, for a Responses
/// reply with a `CursorStore`, the resume GET as the first request of a restarted program.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMRequestTests {
    /// A 401 sends the POST once more with the headers provider's fresh credentials; the refused attempt is no delta.
    @Test func aRejectedKeyIsRefreshedAndThePostSentOnceMore() async throws {
        let t = try EmbeddedLLMDeltaSequenceTests.client("openai") {
            $0.headersProvider = { context in ["Authorization": context.credentialsRejected ? "Bearer fresh" : "Bearer stale"] }
        }
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, .openAI) }
        let first = try await t.sseAttempt(1)
        #expect(first.request.headers["Authorization"] == "Bearer stale")
        EmbeddedClientPolicyTests.answer(first, 401, body: #"{"error":{"code":"invalid_api_key"}}"#, type: "application/json")
        let second = try await t.sseAttempt(2)
        #expect(second.request.method == "POST" && second.request.body == EmbeddedLLMDeltaSequenceTests.body)
        #expect(second.request.headers["Authorization"] == "Bearer fresh")
        second.play(LLMReplyScript(options: LLMReplyOptions(format: .openAI)))
        LLMDeltaSequenceTestsSupport.expectWholeTextReply(await t.pumping { await reply.value }, format: "openai")
        #expect(t.connectionCount == 2)
    }

    /// A Responses client with `.openAIResponses` and its cursor store (`"<response id> <sequence number>"`).
    static func responsesClient(_ store: CursorStore) throws -> EmbeddedClient {
        try EmbeddedClient("http://llm.test/v1/responses") {
            $0 = .llm(body: EmbeddedLLMDeltaSequenceTests.body, headers: ["Authorization": "Bearer sk-test"], terminator: OpenAIResponsesDecoder.terminator)
            $0.networkMonitor = nil
            $0.backoff = .exponential(jitter: .none)
            $0.resume = .openAIResponses
            $0.cursorStore = store
        }
    }

    static let textDelta =
        #"{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" a time"}"#
    static let completed = #"{"type":"response.completed","sequence_number":4,"response":{"id":"resp_1","status":"completed"}}"#

    /// The store gets the reply's id and sequence number as events are processed, and a restarted program's first request is the resume GET.
    @Test func aRestartedProgramResumesTheReplyWithItsFirstRequest() async throws {
        let saved = LockedValue<[String]>([])
        let store = CursorStore(load: { saved.withLock { $0.last } }, save: { cursor in saved.withLock { $0.append(cursor) } })
        let life1 = try Self.responsesClient(store)
        let first = Task { () -> [LLMDelta] in
            var deltas: [LLMDelta] = []
            for await delta in life1.client.deltas(format: .openAIResponses) {
                deltas.append(delta)
                if deltas.count == 2 { break }  // the program stops here
            }
            return deltas
        }
        let post = try await life1.openedSSE()
        #expect(post.request.method == "POST")
        for event in EmbeddedLLMEndTests.responsesStart { post.event(event.data, type: event.type) }
        post.event(Self.textDelta, type: "response.output_text.delta")
        #expect(await life1.pumping { await first.value } == [.text("Once upon"), .text(" a time")])
        // The last delta was never followed by a request for the next, so it counts as not processed.
        #expect(saved.withLock { $0 } == ["resp_1 0", "resp_1 1", "resp_1 2"])

        let life2 = try Self.responsesClient(store)
        let rest = Task { await LLMDeltaSequenceTestsSupport.collect(life2.client, .openAIResponses) }
        let get = try await life2.sseAttempt(1)
        #expect(get.request.method == "GET" && get.request.body == nil)
        #expect(get.request.url.absoluteString == "http://llm.test/v1/responses/resp_1?stream=true&starting_after=2")
        #expect(get.request.headers["Authorization"] == "Bearer sk-test")
        get.respond()
        get.event(Self.textDelta, type: "response.output_text.delta")
        get.event(Self.completed, type: "response.completed")
        #expect(await life2.pumping { await rest.value } == [.text(" a time"), .finish("completed")])
        #expect(life2.connectionCount == 1)
    }
}
#endif

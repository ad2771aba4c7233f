import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer
import Testing

/// ``LLMReplies`` on loopback, with its default clock: a Responses reply cut twice arrives
/// whole after one POST. (Batches stamped with their generation, a new reply replacing the
/// old one, cancel, a failed reply and close are on the embedded stack:
/// `EmbeddedLLMRepliesTests`.)
@Suite(.serialized, .timeLimit(.minutes(1))) struct LLMRepliesTests {
    static func configuration(terminator: StreamTerminator? = OpenAIChatDecoder.terminator) -> RealtimeClient.Configuration {
        var c = RealtimeClient.Configuration.llm(body: LLMDeltaSequenceTests.body, terminator: terminator)
        c.connectTimeout = .seconds(5)
        return c
    }

    static func server() throws -> TestServer {
        let server = TestServer()
        try server.start()
        return server
    }

    /// A Responses reply in background mode, cut twice: the last batch's transcript is the
    /// whole reply, after one POST (the configuration's resume plan is the client's).
    @Test func aResumedReplyArrivesWhole() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let configuration = LLMResumeTests.configuration()
        let replies = LLMReplies()
        var batches = replies.batches.makeAsyncIterator()
        try replies.start(url: server.url("/v1/responses?reply=tools&cut_after=3,9"), configuration: configuration, format: .openAIResponses)
        var last: LLMReplyBatch?
        while let batch = await batches.next() {
            last = batch
            if batch.isLast { break }
        }
        let transcript = try #require(last?.transcript)
        #expect(transcript.error == nil && transcript.finishReason == "completed")
        #expect(transcript.text == LLMReplyOptions.toolPreamble)
        #expect(transcript.toolCalls.map(\.name) == LLMReplyOptions.toolCalls.map(\.name))
        #expect(server.requests(path: "/v1/responses").count == 1)
        #expect(server.requests.filter { $0.path.hasPrefix("/v1/responses/") }.count == 2)
        replies.close()
    }
}

import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer
import Testing

/// ``LLMReplies`` on loopback: coalesced batches stamped with their generation, a resumed
/// reply, a failed one, close. (A new reply replacing the old one, and cancel, are on the
/// embedded stack: `EmbeddedLLMRepliesTests`.)
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

    @Test func aReplyArrivesInBatchesStampedWithItsGeneration() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let replies = LLMReplies()
        var batches = replies.batches.makeAsyncIterator()
        let generation = try replies.start(
            url: server.url("/llm/anthropic?reply=tools&interval_ms=1"),
            configuration: Self.configuration(terminator: AnthropicMessagesDecoder.terminator), format: .anthropic)
        #expect(generation == 1)
        var received: [LLMReplyBatch] = []
        while let batch = await batches.next() {
            received.append(batch)
            if batch.isLast { break }
        }
        #expect(received.allSatisfy { $0.generation == 1 })
        #expect(received.dropLast().allSatisfy { !$0.deltas.isEmpty && !$0.isLast })
        let last = try #require(received.last)
        #expect(last.isLast && last.deltas.isEmpty)
        #expect(last.transcript.text == LLMReplyOptions.toolPreamble)
        #expect(last.transcript.error == nil)
        #expect(last.transcript.finishReason == .toolUse)
        #expect(received.flatMap(\.completedToolCalls).map(\.name) == LLMReplyOptions.toolCalls.map(\.name))
        #expect(received.flatMap(\.deltas).compactMap(\.text).joined() == LLMReplyOptions.toolPreamble)
    }

    @Test func aFailedReplyEndsWithItsError() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let replies = LLMReplies()
        var batches = replies.batches.makeAsyncIterator()
        try replies.start(url: server.url("/llm/openai?status=500"), configuration: Self.configuration(), format: .openAI)
        var last: LLMReplyBatch?
        while let batch = await batches.next() {
            last = batch
            if batch.isLast { break }
        }
        #expect(last?.isLast == true)
        #expect(last?.transcript.error?.code == .httpStatus)
        #expect(last?.transcript.error?.status == 500)
        #expect(last?.transcript.error?.bodyExcerpt?.contains("server_error") == true)
    }

    @Test func closeEndsTheBatchesAndLaterStartsSendNothing() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let replies = LLMReplies()
        let consumer = Task {
            var count = 0
            for await _ in replies.batches { count += 1 }
            return count
        }
        replies.close()
        #expect(await consumer.value == 0)
        try replies.start(url: server.url("/llm/openai"), configuration: Self.configuration(), format: .openAI)
        var iterator = replies.batches.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(server.requests(path: "/llm/openai").isEmpty)
    }
}

#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
@testable import RealtimeTestServer
import RealtimeTesting
import Testing

/// An LLM reply over the production SSE connection on the embedded stack: what ends a reply
/// (an undecodable message, an error inside the stream, the terminator on a connection the
/// server holds) releases the connection before the consumer is told, and ``LLMReplies``
/// closes the reply it replaces or cancels before anything else happens on the loop.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMTests {
    static func chunk(_ text: String) -> String {
        #"data: {"choices":[{"index":0,"delta":{"content":"\#(text)"},"finish_reason":null}]}"# + "\n\n"
    }

    static func client(terminator: StreamTerminator? = OpenAIChatDecoder.terminator) throws -> EmbeddedClient {
        try EmbeddedClient(configure: EmbeddedClientEndOfStreamTests.llm(terminator: terminator))
    }

    @Test func anUndecodableMessageEndsTheReplyAndReleasesTheConnectionWhileTheIteratorIsHeld() async throws {
        let t = try Self.client()
        var deltas = t.client.deltas(format: .openAI).makeAsyncIterator()
        let first = try await t.openedSSE()
        first.send(Self.chunk("ok") + "data: <html>\n\n")
        #expect(await deltas.next() == .text("ok"))
        guard case .error(let failure) = await deltas.next() else {
            Issue.record("expected an error delta")
            return
        }
        #expect(failure.code == .protocolViolation)
        #expect(failure.detail == "openai: the event's data is not valid JSON")
        t.run()
        #expect(first.ended, "released, though the server would hold the connection open")
        #expect(await deltas.next() == nil)
        #expect(t.connectionCount == 1)
    }

    @Test(arguments: ["openai", "anthropic"]) func anErrorInTheStreamEndsTheReplyAndReleasesTheHeldConnection(format: String) async throws {
        let anthropic = format == "anthropic"
        let t = try Self.client(terminator: anthropic ? AnthropicMessagesDecoder.terminator : OpenAIChatDecoder.terminator)
        let reply = Task {
            if anthropic { return await Self.firstDeltaThenRelease(t, .anthropic) }
            return await Self.firstDeltaThenRelease(t, .openAI)
        }
        let first = try await t.openedSSE()
        first.send(
            anthropic
                ? "event: error\n" + #"data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"# + "\n\n"
                : #"data: {"error":{"message":"boom","type":"server_error"}}"# + "\n\n")
        let (delta, ended) = await reply.value
        guard case .error(let failure) = delta else {
            Issue.record("expected an error delta: \(String(describing: delta))")
            return
        }
        #expect(failure.code == .streamError)
        #expect(failure.detail == (anthropic ? "anthropic overloaded_error" : "openai server_error"))
        #expect(ended, "released, though the server holds the connection open")
    }

    /// The reply's first delta; then runs the loop and tells whether the connection ended while
    /// the iterator is still held, and that the reply is over.
    static func firstDeltaThenRelease<D: LLMStreamDecoder>(_ t: EmbeddedClient, _ format: D) async -> (LLMDelta?, Bool) {
        var deltas = t.client.deltas(format: format).makeAsyncIterator()
        let delta = await deltas.next()
        t.run()
        let ended = t.sse(0)?.ended ?? false
        #expect(await deltas.next() == nil, "the reply is over")
        return (delta, ended)
    }

    @Test(arguments: ["openai", "anthropic"]) func theTerminatorEndsTheReplyAndReleasesTheHeldConnection(format: String) async throws {
        let anthropic = format == "anthropic"
        let t = try Self.client(terminator: anthropic ? AnthropicMessagesDecoder.terminator : OpenAIChatDecoder.terminator)
        let reply = Task {
            if anthropic { return await LLMDeltaSequenceTestsSupport.collect(t.client, .anthropic) }
            return await LLMDeltaSequenceTestsSupport.collect(t.client, .openAI)
        }
        let first = try await t.openedSSE()
        if anthropic {
            first.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}"#, type: "content_block_delta")
            first.event(#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#, type: "message_delta")
            first.event(#"{"type":"message_stop"}"#, type: "message_stop")
        } else {
            first.send(Self.chunk("hi"))
            first.send(#"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"# + "\n\ndata: [DONE]\n\n")
        }
        t.run()
        #expect(first.ended, "closed at once: the server holds the connection open")
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: await reply.value)
        #expect(transcript.isFinished && transcript.text == "hi" && transcript.error == nil)
        #expect(t.connectionCount == 1)
    }
}

/// ``LLMReplies`` on the embedded stack: its clock is the loop, and its replies' clients are
/// clients of one embedded network, so "at once" means before the loop's time moves.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMRepliesTests {
    let network = EmbeddedNetwork()

    func client() throws -> RealtimeClient {
        var configuration = RealtimeClient.Configuration.llm(body: Array("{}".utf8), terminator: OpenAIChatDecoder.terminator)
        configuration.networkMonitor = nil
        return try network.client(url: URL(string: "http://llm.test/v1/chat/completions")!, configuration: configuration)
    }

    /// The `index`-th connection, answered with an event stream.
    func answered(_ index: Int) async throws -> EmbeddedSSEServer {
        await network.waitForTransport(index)
        let server = try #require(network.sseServer(index))
        server.respond()
        return server
    }

    /// Batches until one satisfies `stop`.
    func batches(
        _ iterator: inout LLMReplies.Batches.AsyncIterator, until stop: @escaping @Sendable (LLMReplyBatch) -> Bool
    ) async -> [LLMReplyBatch] {
        var received: [LLMReplyBatch] = []
        while let batch = await iterator.next() {
            received.append(batch)
            if stop(batch) { break }
        }
        return received
    }

    @Test func aNewReplyClosesTheOldOneBeforeTheLoopMovesAndNothingOfItArrivesAfter() async throws {
        defer { network.shutdown() }
        let replies = LLMReplies(interval: .zero, clock: network.loop)
        var iterator = replies.batches.makeAsyncIterator()
        let a = replies.start(try client(), format: .openAI)
        let serverA = try await answered(0)
        serverA.send(EmbeddedLLMTests.chunk("a1"))
        let fromA = await batches(&iterator) { _ in true }
        #expect(fromA.map(\.generation) == [a] && fromA.first?.transcript.text == "a1")

        let b = replies.start(try client(), format: .openAI)
        #expect(b == a + 1)
        network.loop.run()
        #expect(serverA.ended, "A's connection is closed before anything else runs on the loop")
        serverA.send(EmbeddedLLMTests.chunk("a2"))
        let serverB = try await answered(1)
        serverB.send(EmbeddedLLMTests.chunk("b1") + #"data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"# + "\n\ndata: [DONE]\n\n")
        let fromB = await batches(&iterator) { $0.isLast }
        #expect(fromB.allSatisfy { $0.generation == b }, "nothing of A after B started: \(fromB.map(\.generation))")
        #expect(fromB.last?.transcript.text == "b1" && fromB.last?.transcript.isFinished == true)
        replies.close()
    }

    @Test func cancelClosesTheReplyWithoutALastBatchAndTheNextStartsAfresh() async throws {
        defer { network.shutdown() }
        let replies = LLMReplies(interval: .zero, clock: network.loop)
        var iterator = replies.batches.makeAsyncIterator()
        replies.start(try client(), format: .openAI)
        let serverA = try await answered(0)
        serverA.send(EmbeddedLLMTests.chunk("a1"))
        #expect(await batches(&iterator) { _ in true }.map(\.generation) == [1])
        replies.cancel()
        network.loop.run()
        #expect(serverA.ended, "the cancelled reply's connection is closed")

        replies.start(try client(), format: .openAI)
        let serverB = try await answered(1)
        serverB.send(EmbeddedLLMTests.chunk("b1") + "data: [DONE]\n\n")
        let fromB = await batches(&iterator) { $0.isLast }
        #expect(fromB.allSatisfy { $0.generation == 2 }, "no last batch of the cancelled reply: \(fromB.map(\.generation))")
        #expect(fromB.last?.transcript.text == "b1")
        replies.close()
    }

    @Test func aReplyArrivesInBatchesStampedWithItsGeneration() async throws {
        defer { network.shutdown() }
        let replies = LLMReplies(interval: .zero, clock: network.loop)
        var iterator = replies.batches.makeAsyncIterator()
        var configuration = RealtimeClient.Configuration.llm(body: Array("{}".utf8), terminator: AnthropicMessagesDecoder.terminator)
        configuration.networkMonitor = nil
        let client = try network.client(url: URL(string: "http://llm.test/v1/messages")!, configuration: configuration)
        #expect(replies.start(client, format: .anthropic) == 1)
        let server = try await answered(0)
        let reply = LLMReplyRenderer(options: LLMReplyOptions(format: .anthropic, query: ["reply": "tools"]), requestBody: []).events()
        for event in reply { server.send(event) }  // one read each
        let received = await batches(&iterator) { $0.isLast }
        #expect(received.allSatisfy { $0.generation == 1 })
        #expect(received.dropLast().allSatisfy { !$0.deltas.isEmpty && !$0.isLast })
        let last = try #require(received.last)
        #expect(last.isLast && last.deltas.isEmpty)
        #expect(last.transcript.text == LLMReplyOptions.toolPreamble)
        #expect(last.transcript.error == nil && last.transcript.finishReason == .toolUse)
        #expect(received.flatMap(\.completedToolCalls).map(\.name) == LLMReplyOptions.toolCalls.map(\.name))
        #expect(received.flatMap(\.deltas).compactMap(\.text).joined() == LLMReplyOptions.toolPreamble)
        replies.close()
    }

    @Test func aFailedReplyEndsWithItsError() async throws {
        defer { network.shutdown() }
        let replies = LLMReplies(interval: .zero, clock: network.loop)
        var iterator = replies.batches.makeAsyncIterator()
        replies.start(try client(), format: .openAI)
        await network.waitForTransport(0)
        EmbeddedClientPolicyTests.answer(
            try #require(network.sseServer(0)), 500, body: #"{"error":{"message":"boom","type":"server_error"}}"#,
            type: "application/json")
        let last = await batches(&iterator) { $0.isLast }.last
        #expect(last?.isLast == true)
        #expect(last?.transcript.error?.code == .httpStatus && last?.transcript.error?.status == 500)
        #expect(last?.transcript.error?.bodyExcerpt?.contains("server_error") == true)
        replies.close()
    }

    /// A start whose client cannot be made throws and changes nothing: the generation stays and the current reply goes on.
    @Test func aStartThatThrowsLeavesTheCurrentReplyStreaming() async throws {
        defer { network.shutdown() }
        let replies = LLMReplies(interval: .zero, clock: network.loop)
        #expect(replies.generation == 0)
        var iterator = replies.batches.makeAsyncIterator()
        replies.start(try client(), format: .openAI)
        let server = try await answered(0)
        server.send(EmbeddedLLMTests.chunk("a1"))
        #expect(await batches(&iterator) { _ in true }.map(\.generation) == [1])
        let unusable = try #require(URL(string: "ftp://llm.test/v1/chat/completions"))
        #expect(throws: RealtimeError.self) {
            try replies.start(url: unusable, configuration: .llm(body: Array("{}".utf8)), format: .openAI)
        }
        #expect(replies.generation == 1)
        network.loop.run()
        #expect(!server.ended, "the current reply's connection stays")
        server.send(EmbeddedLLMTests.chunk("a2") + "data: [DONE]\n\n")
        let rest = await batches(&iterator) { $0.isLast }
        #expect(rest.allSatisfy { $0.generation == 1 })
        #expect(rest.last?.isLast == true && rest.last?.transcript.text == "a1a2")
        replies.close()
    }

    /// When the last reference to the object goes, the batches end and the current reply's connection is closed.
    @Test func droppingTheObjectEndsTheBatchesAndClosesTheReply() async throws {
        defer { network.shutdown() }
        var replies: LLMReplies? = LLMReplies(interval: .zero, clock: network.loop)
        var iterator = try #require(replies).batches.makeAsyncIterator()
        try #require(replies).start(try client(), format: .openAI)
        let server = try await answered(0)
        replies = nil
        #expect(await iterator.next() == nil)
        network.loop.run()
        #expect(server.ended)
    }

    @Test func closeEndsTheBatchesAndLaterStartsConnectNothing() async throws {
        defer { network.shutdown() }
        let replies = LLMReplies(interval: .zero, clock: network.loop)
        var iterator = replies.batches.makeAsyncIterator()
        replies.close()
        #expect(await iterator.next() == nil)
        let client = try client()
        replies.start(client, format: .openAI)
        network.loop.run()
        #expect(client.state == .closed(.cancelled), "the reply's client is closed unstarted")
        #expect(network.connectionCount == 0)
    }
}
#endif

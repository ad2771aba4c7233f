import Foundation
import Realtime
import RealtimeLLM
import RealtimeTestServer
import Testing

/// ``LLMReplies`` on loopback: coalesced batches stamped with their generation, a new reply
/// cancelling the old one (measured on the server side), cancel and close.
@Suite(.serialized, .timeLimit(.minutes(1))) struct LLMRepliesTests {
    static func configuration(terminator: StreamTerminator? = OpenAIChatDecoder.terminator) -> RealtimeClient.Configuration {
        var c = RealtimeClient.Configuration.llm(body: LLMDeltaSequenceTests.body, terminator: terminator)
        c.connectTimeout = .seconds(5)
        return c
    }

    /// A reply that never ends: an OpenAI text chunk every 2 ms until the client hangs up;
    /// records when the server saw it go.
    final class EndlessReply: Sendable {
        let hungUpAt = LockedValue<ContinuousClock.Instant?>(nil)

        func install(on server: TestServer, path: String) {
            server.setHandler(path: path) { [self] writer in
                try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .chunked)
                do {
                    for n in 1... {
                        try writer.write(#"data: {"choices":[{"index":0,"delta":{"content":"a\#(n) "},"finish_reason":null}]}"# + "\n\n")
                        try writer.sleep(milliseconds: 2)
                    }
                } catch {
                    hungUpAt.withLock { $0 = .now }
                    throw error
                }
            }
        }
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

    /// Start A, receive some of it, start B while A's server still sends: nothing of A
    /// arrives after B started, and A's connection is closed (as the server sees it)
    /// within 250 ms of the start of B (A is endless: without the cancellation it would never
    /// close). The time is the best of up to three rounds, as a whole suite running on two
    /// cores can starve the server's thread for longer.
    @Test func aNewReplyCancelsTheOldOneAtOnce() async throws {
        var times: [Duration] = []
        for _ in 0..<3 {
            let time = try await replaceAReplyWhileItStreams()
            times.append(time)
            if time < .milliseconds(250) { break }
        }
        #expect(times.min()! < .milliseconds(250), "A closed \(times) after B started")
    }

    /// One round of ``aNewReplyCancelsTheOldOneAtOnce()``: checks what arrives and returns
    /// how long after the start of B the server saw A's connection close.
    private func replaceAReplyWhileItStreams() async throws -> Duration {
        let server = try Self.server()
        defer { server.stop() }
        let endless = EndlessReply()
        endless.install(on: server, path: "/endless")
        let replies = LLMReplies()
        var batches = replies.batches.makeAsyncIterator()
        let a = try replies.start(url: server.url("/endless"), configuration: Self.configuration(), format: .openAI)
        var received: [LLMReplyBatch] = []
        while received.count < 3, let batch = await batches.next() { received.append(batch) }
        #expect(received.allSatisfy { $0.generation == a && !$0.deltas.isEmpty })

        let startOfB = ContinuousClock.now
        let b = try replies.start(
            url: server.url("/llm/openai?count=30&interval_ms=1"), configuration: Self.configuration(), format: .openAI)
        #expect(b == a + 1)
        var afterB: [LLMReplyBatch] = []
        while let batch = await batches.next() {
            afterB.append(batch)
            if batch.generation == b && batch.isLast { break }
        }
        #expect(afterB.allSatisfy { $0.generation == b }, "\(afterB.filter { $0.generation != b }.count) batches of A after B started")
        #expect(afterB.last?.transcript.text == LLMReplyOptions(format: .openAI, query: ["count": "30"]).text())
        #expect(await eventually("A's server to see the hang-up") { endless.hungUpAt.withLock { $0 != nil } })
        let hungUpAt = try #require(endless.hungUpAt.withLock { $0 })
        #expect(server.requests(path: "/endless").count == 1)
        return startOfB.duration(to: hungUpAt)
    }

    @Test func cancelStopsTheReplyWithoutALastBatch() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let endless = EndlessReply()
        endless.install(on: server, path: "/endless")
        let replies = LLMReplies()
        var batches = replies.batches.makeAsyncIterator()
        try replies.start(url: server.url("/endless"), configuration: Self.configuration(), format: .openAI)
        #expect(await batches.next()?.generation == 1)
        replies.cancel()
        #expect(await eventually("the hang-up") { endless.hungUpAt.withLock { $0 != nil } })
        try replies.start(url: server.url("/llm/openai"), configuration: Self.configuration(), format: .openAI)
        var next = await batches.next()
        while let batch = next, !batch.isLast {
            #expect(batch.generation == 2)
            next = await batches.next()
        }
        #expect(next?.generation == 2)
        #expect(next?.transcript.isFinished == true)
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

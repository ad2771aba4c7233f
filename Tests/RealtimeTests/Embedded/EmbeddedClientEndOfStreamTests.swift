#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// The end of a finite stream over the production SSE connection on the embedded stack: a
/// configured terminator ends it at once, whatever else the same read holds; a clean end
/// without it is `truncated`; without a terminator a clean end is the end.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientEndOfStreamTests {
    /// The LLM preset (POST, `[DONE]`, no reconnect after the request reached the server) with
    /// the embedded client's test defaults.
    static func llm(body: [UInt8] = Array(#"{"prompt":"hi"}"#.utf8), terminator: StreamTerminator? = .data("[DONE]"))
        -> (inout RealtimeClient.Configuration) -> Void
    {
        { c in
            c = .llm(body: body, terminator: terminator)
            c.networkMonitor = nil
            c.heartbeat = .disabled
            c.backoff = .exponential(jitter: .none)
        }
    }

    @Test func doneEndsTheReplyAndClosesTheConnection() async throws {
        let t = try EmbeddedClient(configure: Self.llm())
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a")
        first.event("b")
        first.event("[DONE]")
        t.run()
        #expect(first.ended, "closed at once: the server may hold the connection open")
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a) event(b) closed(final)")
        #expect(rec.events.last?.closeEvent == CloseEvent(clean: true, willReconnect: false))
        #expect(t.client.state == .closed(nil))
        #expect(t.connectionCount == 1, "the request was sent once")
        t.run()
        #expect(t.loop.pendingTimerCount == 0)
    }

    @Test func theTerminatorInTheSameReadAsTheDeltas() async throws {
        let t = try EmbeddedClient(configure: Self.llm())
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send(["x", "y", "[DONE]", "z"].map { "data: \($0)\n\n" }.joined())
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(x) event(y) closed(final)")
    }

    /// A terminator never matches an SSE comment, even one whose predicate accepts anything:
    /// a proxy's keep-alive comment does not end the reply.
    @Test func aCommentIsNeverTheTerminator() async throws {
        let t = try EmbeddedClient { c in
            Self.llm(terminator: .matching { _ in true })(&c)
            c.sse.reportsComments = true
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.send(": keep-alive\n\n")
        first.event("end")
        await rec.waitUntilFinished()
        #expect(rec.events.compactMap { $0.message?.isComment } == [true], "the comment is delivered, the terminator is not")
        #expect(rec.events.first { $0.message != nil }?.message?.text == "keep-alive")
        #expect(rec.events.last?.closeEvent == CloseEvent(clean: true, willReconnect: false))
        #expect(first.ended && t.connectionCount == 1)
    }

    @Test(arguments: [StreamTerminator.eventType("message_stop"), .matching { $0.text?.hasPrefix("{\"type\":\"end") == true }])
    func anEventTypeOrACustomTerminator(_ terminator: StreamTerminator) async throws {
        let t = try EmbeddedClient(configure: Self.llm(body: [1], terminator: terminator))
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("hi", type: "content_block_delta")
        first.event("{\"type\":\"end\"}", type: "message_stop")
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(hi) closed(final)")
    }

    /// A delivered terminator (an end marker that carries data) is the last event, after what
    /// came before it in the same read, and nothing after it is delivered.
    @Test(arguments: [false, true])
    func aDeliveredTerminatorIsTheLastEvent(sameRead: Bool) async throws {
        let terminator = StreamTerminator.matching(delivered: true) { $0.type == "response.completed" }
        let t = try EmbeddedClient(configure: Self.llm(body: [1], terminator: terminator))
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        let events = [("delta", "a"), ("response.completed", "usage"), ("delta", "late")]
        if sameRead {
            first.send(events.map { "event: \($0.0)\ndata: \($0.1)\n\n" }.joined())
        } else {
            for (type, data) in events { first.event(data, type: type) }
        }
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a) event(usage) closed(final)")
    }

    @Test func aCleanEndWithoutTheTerminatorIsTruncated() async throws {
        let t = try EmbeddedClient(configure: Self.llm())
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("partial")
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(partial) error(truncated,stop) closed(final)")
        let e = try #require(rec.events.at(2)?.errorEvent)
        #expect(e.error.code == .truncated && !e.willRetry && e.retryIn == nil)
        #expect(t.client.state == .closed(e.error))
        #expect(t.connectionCount == 1)
    }

    @Test func withoutATerminatorACleanEndIsTheEnd() async throws {
        let t = try EmbeddedClient(configure: Self.llm(body: [1], terminator: nil))
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("[DONE]")
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event([DONE]) closed(final)")
    }
}

/// `deltas(format:)` takes the reply's end from the decoder, whatever the configuration's
/// terminator: a decoder with no end marker ends at a clean end of stream (not `truncated`),
/// one with a delivered end marker decodes it; a client closed before it started stays closed.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMDecoderTerminatorTests {
    /// Each message's text is a delta; no end marker (a clean end is the end of the reply).
    struct Plain: LLMStreamDecoder {
        mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
            deltas.append(.text(message.text ?? ""))
        }
    }

    /// Ends at a delivered `end` event, which carries the finish.
    struct Delivered: LLMStreamDecoder {
        static var terminator: StreamTerminator? { .eventType("end", delivered: true) }
        mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
            deltas.append(message.type == "end" ? .finish(.stop) : .text(message.text ?? ""))
        }
    }

    @Test func aDecoderWithoutAnEndMarkerEndsAtACleanEnd() async throws {
        // `.llm` defaults to OpenAI's `[DONE]`: the decoder's nil wins.
        let t = try EmbeddedClient(configure: EmbeddedClientEndOfStreamTests.llm(body: [1]))
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, Plain()) }
        let first = try await t.openedSSE()
        first.event("a")
        first.event("b")
        first.finish()
        #expect(await reply.value == [.text("a"), .text("b")], "no truncated error")
    }

    @Test func aDeliveredEndMarkerIsDecodedAndEndsTheReply() async throws {
        let t = try EmbeddedClient(configure: EmbeddedClientEndOfStreamTests.llm(body: [1]))
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, Delivered()) }
        let first = try await t.openedSSE()
        first.send("event: delta\ndata: a\n\nevent: end\ndata: {}\n\n")
        #expect(await reply.value == [.text("a"), .finish(.stop)])
        t.run()
        #expect(first.ended, "the client closed the connection at the end marker")
    }

    @Test func aClientClosedBeforeItsRepliesStartEndsAtOnce() async throws {
        let t = try EmbeddedClient(configure: EmbeddedClientEndOfStreamTests.llm(body: [1]))
        t.client.close()
        #expect(await LLMDeltaSequenceTestsSupport.collect(t.client, Delivered()).isEmpty)
        #expect(t.connectionCount == 0)
    }
}
#endif

import Foundation
import Realtime
import RealtimeLLM
import Testing
@_spi(Transport) import RealtimeCore

/// The end of a finite stream: a configured terminator ends it at once; a clean end without
/// it is `truncated`. Scripted transports, manual clock.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientEndOfStreamTests {
    static func llm(_ c: inout RealtimeClient.Configuration) {
        c = .llm(body: Array(#"{"prompt":"hi"}"#.utf8))
    }

    @Test func doneEndsTheReplyAndClosesTheConnection() async throws {
        let t = try TestClient(configure: Self.llm)
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a")
        first.message("b")
        first.message("[DONE]")
        #expect(first.closed, "closed at once: the server may hold the connection open")
        first.message("late")
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a) event(b) closed(final)")
        #expect(rec.events.last?.closeEvent == CloseEvent(clean: true, willReconnect: false))
        #expect(t.client.state == .closed(nil))
        #expect(t.factory.count == 1, "the request was sent once")
        #expect(t.clock.sleeperCount == 0)
    }

    @Test func terminatorInTheSameReadAsTheDeltas() async throws {
        let t = try TestClient(configure: Self.llm)
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        let batch: [TransportEvent] = ["x", "y", "[DONE]", "z"].map { .message(.sse(type: "message", data: $0, id: "")) }
        first.emit(contentsOf: batch)
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(x) event(y) closed(final)")
    }

    @Test func eventTypeAndCustomTerminators() async throws {
        for terminator in [StreamTerminator.eventType("message_stop"), .matching { $0.text?.hasPrefix("{\"type\":\"end") == true }] {
            let t = try TestClient { $0 = .llm(body: [1], terminator: terminator) }
            let rec = EventRecorder(t.client)
            let first = try #require(await t.factory.transport(0))
            first.open()
            first.emit(.message(.sse(type: "content_block_delta", data: "hi", id: "")))
            first.emit(.message(.sse(type: "message_stop", data: "{\"type\":\"end\"}", id: "")))
            await rec.waitUntilFinished()
            #expect(rec.summary == "open(1) event(hi) closed(final)")
        }
    }

    /// A delivered terminator (an end marker that carries data) is the last event, after what
    /// came before it in the same read, and nothing after it is delivered.
    @Test(arguments: [false, true])
    func aDeliveredTerminatorIsTheLastEvent(sameRead: Bool) async throws {
        let terminator = StreamTerminator.matching(delivered: true) { $0.type == "response.completed" }
        let t = try TestClient { $0 = .llm(body: [1], terminator: terminator) }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        let batch: [TransportEvent] = [("delta", "a"), ("response.completed", "usage"), ("delta", "late")].map {
            .message(.sse(type: $0.0, data: $0.1, id: ""))
        }
        if sameRead {
            first.emit(contentsOf: batch)
        } else {
            for event in batch { first.emit(event) }
        }
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a) event(usage) closed(final)")
    }

    @Test func cleanEndWithoutTheTerminatorIsTruncated() async throws {
        let t = try TestClient(configure: Self.llm)
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("partial")
        first.endCleanly()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(partial) error(truncated,stop) closed(final)")
        let e = try #require(rec.events.at(2)?.errorEvent)
        #expect(e.error.code == .truncated && !e.willRetry && e.retryIn == nil)
        #expect(t.client.state == .closed(e.error))
        #expect(t.factory.count == 1)
    }

    @Test func withoutATerminatorACleanEndIsTheEnd() async throws {
        let t = try TestClient { $0 = .llm(body: [1], terminator: nil) }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("[DONE]")
        first.endCleanly()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event([DONE]) closed(final)")
    }
}

/// `deltas(format:)` takes the reply's end from the decoder, whatever the configuration's
/// terminator: a decoder with no end marker ends at a clean end of stream (not `truncated`),
/// one with a delivered end marker decodes it; a client closed before it started stays closed.
@Suite(.timeLimit(.minutes(1))) struct LLMDecoderTerminatorTests {
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
        let t = try TestClient { $0 = .llm(body: [1]) }
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, Plain()) }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a")
        first.message("b")
        first.endCleanly()
        #expect(await reply.value == [.text("a"), .text("b")], "no truncated error")
    }

    @Test func aDeliveredEndMarkerIsDecodedAndEndsTheReply() async throws {
        let t = try TestClient { $0 = .llm(body: [1]) }
        let reply = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, Delivered()) }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.emit(contentsOf: [.message(.sse(type: "delta", data: "a", id: "")), .message(.sse(type: "end", data: "{}", id: ""))])
        #expect(await reply.value == [.text("a"), .finish(.stop)])
        #expect(first.closed, "the client closed the connection at the end marker")
    }

    @Test func aClientClosedBeforeItsRepliesStartEndsAtOnce() async throws {
        let t = try TestClient { $0 = .llm(body: [1]) }
        t.client.close()
        #expect(await LLMDeltaSequenceTestsSupport.collect(t.client, Delivered()).isEmpty)
        #expect(t.factory.count == 0)
    }
}

enum LLMDeltaSequenceTestsSupport {
    static func collect<D: LLMStreamDecoder>(_ client: RealtimeClient, _ format: D) async -> [LLMDelta] {
        var deltas: [LLMDelta] = []
        for await delta in client.deltas(format: format) { deltas.append(delta) }
        return deltas
    }
}

import Realtime
import RealtimeTestSupport
import Synchronization
import Testing
@_spi(Transport) import RealtimeCore

extension ClientBatchEvent {
    /// `open(N)`, `[a,b,c]` for a batch's texts, `error(code,retry|stop)`, `closed(...)`.
    var short: String {
        switch self {
        case .open(let i): return "open(\(i.attempt))"
        case .messages(let b): return "[" + b.map { $0.text ?? "?" }.joined(separator: ",") + "]"
        case .error(let e): return "error(\(e.error.code),\(e.willRetry ? "retry" : "stop"))"
        case .closed(let c): return "closed(\(c.willReconnect ? "reconnect" : "final"))"
        }
    }
}

/// `client.batches` on scripted transports: batches in order between the control events,
/// the resume cursor per processed batch, back-pressure in batches, one consumer per client.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientBatchTests {
    static func batch(_ ids: ClosedRange<Int>) -> MessageBatch {
        MessageBatch(ids.map { Message.sse(type: "message", data: "m\($0)", id: "\($0)") })
    }

    @Test func aBatchIsProcessedWhenTheNextIsAskedForAndTheCursorIsItsLastID() async throws {
        let t = try TestClient()
        var it = t.client.batches.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.prefersMessageBatches, "an SSE transport is asked for packed batches")
        first.open()
        first.emit(.messages(Self.batch(1...3)))
        first.emit(.messages(Self.batch(4...5)))
        first.fail(RealtimeError(.network))

        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "[m1,m2,m3]")
        #expect(t.client.lastEventID == nil, "received, not processed yet")
        #expect(await it.next()?.short == "[m4,m5]")
        #expect(t.client.lastEventID == "3", "the whole first batch, never a later id")
        // The second batch, the error and the close are received, not processed: the
        // reconnect waits for the consumer even after the backoff delay.
        await t.advance(by: .seconds(1))
        await t.waitForState("waiting for the consumer") { $0.isWaitingToRetry }
        #expect(t.factory.count == 1, "must not reconnect before the consumer caught up")
        #expect(await it.next()?.short == "error(network,retry)")
        #expect(t.client.lastEventID == "5")
        #expect(await it.next()?.short == "closed(reconnect)")
        await t.client.acknowledge()
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "5")
        second.open()
        second.emit(.messages(Self.batch(6...6)))
        #expect(await it.next()?.short == "open(2)")
        #expect(await it.next()?.short == "[m6]")
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "6")
        #expect(t.client.statistics.messages == 6)
    }

    @Test func singleMessagesAreGroupedAndTheCursorIsTheLastIDCarried() async throws {
        let t = try TestClient("ws://127.0.0.1:8080/ws") { $0.messageID = { $0.text == "no-id" ? nil : $0.text } }
        var it = t.client.batches.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(!first.request.prefersMessageBatches, "WebSocket has no packed batches")
        first.open()
        first.emit(.messages(MessageBatch((1...40).map { Message(content: .text("w\($0)")) } + [Message(content: .text("no-id"))])))
        #expect(await it.next()?.short == "open(1)")
        var texts: [String] = []
        var sizes: [Int] = []
        for _ in 0..<3 {
            guard case .messages(let b)? = await it.next() else { Issue.record("no batch"); return }
            sizes.append(b.count)
            texts += b.map { $0.text ?? "?" }
        }
        #expect(sizes == [16, 16, 9], "whole messages go in batches of at most 16")
        #expect(texts == (1...40).map { "w\($0)" } + ["no-id"])
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "w40", "a message without an id keeps the cursor")
    }

    @Test func thePerEventConsumerGetsABatchAsEvents() async throws {
        let t = try TestClient()
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(!first.request.prefersMessageBatches)
        first.open()
        first.emit(.messages(Self.batch(1...3)))
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(m1)")
        #expect(await it.next()?.short == "event(m2)")
        #expect(t.client.lastEventID == "1", "one event at a time")
        #expect(await it.next()?.short == "event(m3)")
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "3")
    }

    @Test func aTerminatorSeesEveryMessageOfABatch() async throws {
        let t = try TestClient { $0.terminator = .data("[DONE]") }
        var it = t.client.batches.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(!first.request.prefersMessageBatches, "with a terminator, messages stay whole")
        first.open()
        first.emit(.messages(MessageBatch(["a", "b", "[DONE]", "c"].map { Message.sse(type: "message", data: $0, id: "") })))
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "[a,b]")
        #expect(await it.next()?.short == "closed(final)")
        #expect(await it.next() == nil)
    }

    @Test func theBufferCountsBatchesAndPausesTheTransport() async throws {
        let t = try TestClient { $0.eventBufferCapacity = 32 }
        var it = t.client.batches.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        // Capacity 32 events → 2 batches: the open and one batch fill it.
        var sent = 0
        while first.pausedSends == 0, sent < 20 {
            first.emit(.messages(Self.batch((sent * 10 + 1)...(sent * 10 + 10))))
            sent += 1
        }
        #expect(sent <= 2, "the producer must be told to pause once two items are buffered")
        for i in sent..<20 { first.emit(.messages(Self.batch((i * 10 + 1)...(i * 10 + 10)))) }
        #expect(first.demands == 0)
        #expect(await it.next()?.short == "open(1)")
        var ids: [String] = []
        for _ in 0..<20 {
            guard case .messages(let b)? = await it.next() else { Issue.record("no batch"); return }
            ids += b.compactMap(\.id)
        }
        #expect(ids == (1...200).map { "\($0)" }, "nothing lost, in order")
        #expect(first.demands >= 1, "the paused producer must be told to resume")
    }

    @Test func oneConsumerPerClientWhicheverComesFirst() async throws {
        let a = try TestClient()
        var events = a.client.events.makeAsyncIterator()
        var lateBatches = a.client.batches.makeAsyncIterator()
        #expect(await lateBatches.next() == nil, "batches after events ends at once")
        let t0 = try #require(await a.factory.transport(0))
        t0.open()
        #expect(await events.next()?.short == "open(1)", "the first consumer is unaffected")
        a.client.close()

        let b = try TestClient()
        var batches = b.client.batches.makeAsyncIterator()
        var lateEvents = b.client.events.makeAsyncIterator()
        #expect(await lateEvents.next() == nil, "events after batches ends at once")
        let t1 = try #require(await b.factory.transport(0))
        t1.open()
        t1.message("x", id: "1")
        #expect(await batches.next()?.short == "open(1)")
        #expect(await batches.next()?.short == "[x]")
        b.client.close()
    }
}

@Suite(.timeLimit(.minutes(1))) struct MessageBatchDescriptionTests {
    @Test func aBatchIsSummarisedNotPrinted() {
        let batch = RealtimeClientBatchTests.batch(1...3)
        #expect("\(batch)" == "3 messages, 6 bytes, ids 1…3")
        #expect("\(ClientBatchEvent.messages(batch))" == "messages: 3 messages, 6 bytes, ids 1…3")
        #expect("\(MessageBatch([Message(content: .binary([1, 2]))]))" == "1 message, 2 bytes")
        #expect("\(batch[1])" == "\"m2\" (id 2)")
    }
}

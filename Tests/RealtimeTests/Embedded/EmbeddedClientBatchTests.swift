#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `client.batches` over the production connections on the embedded stack: what one read
/// brings is one batch (SSE events packed, WebSocket messages whole in groups of at most 16),
/// in order between the control events; the resume cursor per processed batch; the buffer
/// counting batches and pausing the transfer; one consumer per client.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientBatchTests {
    /// Events `ids` as one chunk of the body (one read of the connection).
    static func chunk(_ ids: ClosedRange<Int>) -> String {
        ids.map { "data: m\($0)\nid: \($0)\n\n" }.joined()
    }

    @Test func aBatchIsProcessedWhenTheNextIsAskedForAndTheCursorIsItsLastID() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.openedSSE()
        first.send(Self.chunk(1...3))
        first.send(Self.chunk(4...5))
        first.reset()
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "[m1,m2,m3]")
        #expect(t.client.lastEventID == nil, "received, not processed yet")
        #expect(await it.next()?.short == "[m4,m5]")
        #expect(t.client.lastEventID == "3", "the whole first batch, never a later id")
        // The second batch, the error and the close are received, not processed: the
        // reconnect waits for the consumer even after the backoff delay.
        await t.waitForTheBackoff()
        t.advance(by: .seconds(1))
        #expect(t.connectionCount == 1, "must not reconnect before the consumer caught up")
        #expect(await it.next()?.short == "error(network,retry)")
        #expect(t.client.lastEventID == "5")
        #expect(await it.next()?.short == "closed(reconnect)")
        await t.client.acknowledge()
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == "5")
        second.respond()
        second.send(Self.chunk(6...6))
        #expect(await it.next()?.short == "open(2)")
        #expect(await it.next()?.short == "[m6]")
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "6")
        #expect(t.client.statistics.messages == 6)
    }

    @Test func webSocketMessagesOfOneReadAreGroupedAndTheCursorIsTheLastIDCarried() async throws {
        let t = try EmbeddedClient("ws://peer.test/ws") { $0.messageID = { $0.text == "no-id" ? nil : $0.text } }
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.webSocketAttempt(1)
        first.accept()
        first.feed(((1...40).map { "w\($0)" } + ["no-id"]).flatMap { first.textFrame($0) })
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

    @Test func thePerEventConsumerGetsARead() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        var it = t.client.events.makeAsyncIterator()
        let first = try await t.openedSSE()
        first.send(Self.chunk(1...3))
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(m1)")
        #expect(await it.next()?.short == "event(m2)")
        #expect(t.client.lastEventID == "1", "one event at a time")
        #expect(await it.next()?.short == "event(m3)")
        await t.client.acknowledge()
        #expect(t.client.lastEventID == "3")
    }

    @Test func aTerminatorSeesEveryMessageOfARead() async throws {
        let t = try EmbeddedClient { $0.terminator = .data("[DONE]") }
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.openedSSE()
        first.send(["a", "b", "[DONE]", "c"].map { "data: \($0)\n\n" }.joined())
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "[a,b]")
        #expect(await it.next()?.short == "closed(final)")
        #expect(await it.next() == nil)
        t.run()
        #expect(first.ended)
    }

    /// The next batch, once the server offered what it held behind a pause (the consumer's
    /// progress queued the unpause on the loop).
    static func next(
        _ it: inout RealtimeClient.Batches.AsyncIterator, _ server: EmbeddedSSEServer, _ t: EmbeddedClient
    ) async -> ClientBatchEvent? {
        t.run()
        if server.paused { server.pump() }
        return await it.next()
    }

    /// A batch holds at most `eventBufferCapacity` events (at least 16) and 32 KiB of data; a
    /// larger event travels alone. One read of 40 small events with capacity 16 is three
    /// batches; 10 KiB events go three to a batch, and a 40 KiB one alone.
    @Test func aBatchIsBoundedByCountAndBytes() async throws {
        let t = try EmbeddedClient { $0.eventBufferCapacity = 16 }
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.openedSSE()
        #expect(await it.next()?.short == "open(1)")
        first.send(Self.chunk(1...40))
        var sizes: [Int] = []
        while sizes.reduce(0, +) < 40, case .messages(let b)? = await Self.next(&it, first, t) { sizes.append(b.count) }
        #expect(sizes == [16, 16, 8])
        let tenKiB = String(repeating: "x", count: 10 << 10)
        let big = String(repeating: "y", count: 40 << 10)
        first.send(String(repeating: "data: \(tenKiB)\n\n", count: 4) + "data: \(big)\n\n" + "data: \(tenKiB)\n\n")
        var bytes: [[Int]] = []
        while bytes.joined().count < 6, case .messages(let b)? = await Self.next(&it, first, t) {
            bytes.append(b.map { $0.payloadByteCount >> 10 })
        }
        #expect(bytes == [[10, 10, 10], [10], [40], [10]])
    }

    @Test func theBufferCountsBatchesAndPausesTheTransfer() async throws {
        let t = try EmbeddedClient { $0.eventBufferCapacity = 32 }
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.openedSSE()
        // Capacity 32 events → 2 batches: the open and one batch fill it.
        var sent = 0
        while !first.paused, sent < 20 {
            first.send(Self.chunk((sent * 10 + 1)...(sent * 10 + 10)))
            sent += 1
        }
        #expect(first.paused && sent <= 2, "paused once two items are buffered (\(sent) reads)")
        for i in sent..<20 { first.send(Self.chunk((i * 10 + 1)...(i * 10 + 10))) }
        #expect(await it.next()?.short == "open(1)")
        var ids: [String] = []
        while ids.count < 200 {
            t.run()  // the consumer's progress queued the unpause
            if first.paused { first.pump() }
            guard case .messages(let b)? = await it.next() else { Issue.record("no batch after \(ids.count)"); return }
            ids += b.compactMap(\.id)
        }
        #expect(ids == (1...200).map { "\($0)" }, "nothing lost, in order")
        #expect(!first.paused, "the transfer reads again once the consumer caught up")
    }

    /// An event followed by silence is handed over at the end of the read that brought it,
    /// not held until more data (or the end of the stream) closes its batch: the loop's time
    /// never moves here, and the transfer stays open.
    @Test func aLoneEventIsDeliveredAtTheEndOfItsRead() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.openedSSE()
        #expect(await it.next()?.short == "open(1)")
        first.send(Self.chunk(1...1))
        #expect(await it.next()?.short == "[m1]")
        #expect(!first.ended && t.loop.now == .init(offset: .zero))
    }

    @Test func oneConsumerPerClientWhicheverComesFirst() async throws {
        let a = try EmbeddedClient()
        var events = a.client.events.makeAsyncIterator()
        var lateBatches = a.client.batches.makeAsyncIterator()
        #expect(await lateBatches.next() == nil, "batches after events ends at once")
        try await a.openedSSE().send(Self.chunk(1...1))
        #expect(await events.next()?.short == "open(1)", "the first consumer is unaffected")
        #expect(await events.next()?.short == "event(m1)")
        a.client.close()

        let b = try EmbeddedClient()
        var batches = b.client.batches.makeAsyncIterator()
        var lateEvents = b.client.events.makeAsyncIterator()
        #expect(await lateEvents.next() == nil, "events after batches ends at once")
        try await b.openedSSE().send(Self.chunk(1...1))
        #expect(await batches.next()?.short == "open(1)")
        #expect(await batches.next()?.short == "[m1]")
        b.client.close()
    }
}
#endif

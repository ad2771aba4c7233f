@testable import Realtime
import RealtimeTestSupport
import Testing

/// `close()` delivers nothing more: events already buffered for the consumer are dropped,
/// later transport events are ignored, and the iterator ends at its next turn.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientCloseTests {
    @Test func closeDropsBufferedEventsAndDeliversNothingMore() async throws {
        let t = try TestClient()
        var events = t.client.events.makeAsyncIterator()
        let first = try #require(await t.factory.transport(0))
        first.open()
        for (i, text) in ["a", "b", "c"].enumerated() { first.message(text, id: "\(i + 1)") }
        #expect(await events.next()?.short == "open(1)")
        #expect(await events.next()?.short == "event(a)")
        // b and c wait in the client's buffer: the consumer has not asked for them.
        t.client.close()
        first.message("d", id: "4")
        #expect(await events.next() == nil, "nothing after close(), not even what was buffered")
        #expect(t.client.lastEventID == "1", "asking for more processed a; b and c were never handed over")
        #expect(first.closed)
    }
}

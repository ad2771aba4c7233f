import Realtime
import Testing

/// The client's buffer seen through the client: the relay's batches fill it and pause the
/// transport, which is told to read again once, when the consumer is down to half of it.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientBufferTests {
    @Test func aPausedTransportIsReleasedOnceAtHalfTheBuffer() async throws {
        let t = try TestClient { $0.eventBufferCapacity = 8 }
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        var sent = 0
        while first.pausedSends == 0, sent < 16 {
            first.message("\(sent)", id: "\(sent)")
            sent += 1
        }
        #expect(sent == 7, "the open and 7 messages fill the 8 places")
        #expect(await it.next()?.short == "open(1)")
        for i in 0..<2 { #expect(await it.next()?.short == "event(\(i))") }
        #expect(first.demands == 0, "5 of 8 are still counted: what the consumer took and has not been handed")
        #expect(await it.next()?.short == "event(2)")
        #expect(first.demands == 1, "down to 4 of 8: the transport reads again")
        for i in 3..<7 { #expect(await it.next()?.short == "event(\(i))") }
        #expect(first.demands == 1, "once per pause")
        #expect(first.pausedSends == 1)
    }

    @Test func anEventEmittedOnAnotherThreadTakesItsPlaceBehindTheBufferedOnes() async throws {
        let t = try TestClient()
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("b", id: "2")
        // The consumer has asked for nothing: three events wait when the app suspends.
        t.client.suspend()
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(a)")
        #expect(await it.next()?.short == "event(b)")
        #expect(await it.next()?.short == "closed(reconnect)", "the close emitted by suspend() comes after them")
    }
}

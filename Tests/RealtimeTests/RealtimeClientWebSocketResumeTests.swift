import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// WebSocket resume through `Configuration.messageID` (the cursor read from each message)
/// and `Configuration.resumeURL` (where the next attempt tells the server to resume).
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientWebSocketResumeTests {
    @Test func processedIDBecomesTheNextAttemptsURL() async throws {
        let t = try TestClient("ws://127.0.0.1:8080/ws", configure: { $0.resumeWithIDPipeFraming() })
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.url.absoluteString == "ws://127.0.0.1:8080/ws", "no cursor yet: the URL as given")
        first.open()
        first.message("1|a")
        first.message("2|b")
        first.message("3|c")
        first.fail(RealtimeError(.network))

        #expect(await it.next()?.short == "open(1)")
        let a = await it.next()
        #expect(a?.short == "event(1|a)")
        if case .event(let m) = a { #expect(m.id == "1", "the id read from the payload is the message's") }
        #expect(await it.next()?.short == "event(2|b)")
        #expect(t.client.lastEventID == "1")
        // Message 3 is received but not processed: the reconnect waits for the consumer.
        await t.advance(by: .seconds(1))
        await t.waitForState("waiting for the consumer") { $0.isWaitingToRetry }
        #expect(t.clock.sleeperCount == 0, "the delay is over")
        #expect(t.factory.count == 1, "a WebSocket with messageID must not reconnect before the consumer caught up")
        #expect(await it.next()?.short == "event(3|c)")
        #expect(await it.next()?.short == "error(network,retry)")
        #expect(await it.next()?.short == "closed(reconnect)")
        await t.client.acknowledge()
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.url.absoluteString == "ws://127.0.0.1:8080/ws?after=3")
        #expect(t.client.lastEventID == "3")
    }

    @Test func withoutMessageIDWebSocketMessagesCarryNoID() async throws {
        let t = try TestClient("ws://127.0.0.1:8080/ws")
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("1|a")
        let events = await rec.waitFor(2)
        if case .event(let m) = events.at(1) { #expect(m.id == nil) } else { Issue.record("no message: \(rec.summary)") }
    }

    @Test func resumeURLThatChangesTheTransportStops() async throws {
        let t = try TestClient("ws://127.0.0.1:8080/ws") {
            $0.resumeURL = { _, _ in URL(string: "http://127.0.0.1:8080/sse")! }
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(invalid_configuration,stop)")
        #expect(t.factory.count == 0, "no transport is made for a URL of the other transport")
    }
}

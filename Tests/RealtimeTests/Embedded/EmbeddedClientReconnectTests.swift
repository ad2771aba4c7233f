#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// WebSocket resume through `Configuration.messageID` (the cursor read from each message) and
/// `Configuration.resumeURL` (where the next attempt tells the server to resume), and
/// ``RealtimeClient/restart()``, over the production transports on the embedded stack.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientReconnectTests {
    static let url = "ws://peer.test/ws"

    @Test func theProcessedIDBecomesTheNextAttemptsURL() async throws {
        let t = try EmbeddedClient(Self.url) { $0.resumeWithIDPipeFraming() }
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try await t.webSocketAttempt(1)
        #expect(first.request.url.absoluteString == Self.url, "no cursor yet: the URL as given")
        first.accept()
        for text in ["1|a", "2|b", "3|c"] { first.sendText(text) }
        first.reset()

        #expect(await it.next()?.short == "open(1)")
        let a = await it.next()
        #expect(a?.short == "event(1|a)")
        if case .event(let m) = a { #expect(m.id == "1", "the id read from the payload is the message's") }
        #expect(await it.next()?.short == "event(2|b)")
        #expect(t.client.lastEventID == "1")
        // Message 3 is received but not processed: the reconnect waits for the consumer.
        await t.waitOutTheBackoff()
        #expect(t.loop.pendingTimerCount == 0, "the delay is over")
        #expect(t.connectionCount == 1, "a WebSocket with messageID must not reconnect before the consumer caught up")
        #expect(await it.next()?.short == "event(3|c)")
        #expect(await it.next()?.short == "error(network,retry)")
        #expect(await it.next()?.short == "closed(reconnect)")
        await t.client.acknowledge()
        let second = try await t.webSocketAttempt(2)
        #expect(second.request.url.absoluteString == Self.url + "?after=3")
        #expect(t.client.lastEventID == "3")
    }

    @Test func withoutMessageIDWebSocketMessagesCarryNoID() async throws {
        let t = try EmbeddedClient(Self.url)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.webSocketAttempt(1)
        first.accept()
        first.sendText("1|a")
        let events = await rec.waitFor(2)
        if case .event(let m) = events.at(1) { #expect(m.id == nil) } else { Issue.record("no message: \(rec.summary)") }
    }

    @Test func aResumeURLThatChangesTheTransportStops() async throws {
        let t = try EmbeddedClient(Self.url) {
            $0.resumeURL = { _, _ in URL(string: "http://peer.test/sse")! }
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(invalid_configuration,stop)")
        t.run()
        #expect(t.connectionCount == 0, "no transport is made for a URL of the other transport")
    }

    @Test func restartReconnectsAtOnceWithTheCursorAndNoFailure() async throws {
        let t = try EmbeddedClient()
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.event("b", id: "2")
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(a)")
        #expect(await it.next()?.short == "event(b)")
        await t.client.acknowledge()
        t.client.restart()
        t.run()
        #expect(first.ended, "the live connection was closed")
        #expect(await it.next()?.short == "closed(reconnect)")
        await t.client.acknowledge()
        // No time passes: the second attempt needs no backoff.
        await t.network.waitForTransport(1)
        let second = try #require(t.sse(1))
        #expect(second.request.lastEventID == "2")
        #expect(t.loop.now.offset == .zero, "no backoff")
        second.respond()
        #expect(await it.next()?.short == "open(2)")
        let stats = t.client.statistics
        #expect(stats.errorsByClass.isEmpty, "a restart is not a failure")
        #expect(stats.restarts == 1)
    }

    @Test func restartCutsTheBackoffShort() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.reset()
        await rec.waitFor(4)
        await t.waitForTheBackoff()
        t.client.restart()
        await t.network.waitForTransport(1)
        #expect(try #require(t.sse(1)).request.lastEventID == "1")
        #expect(t.loop.now.offset == .zero, "the backoff was cut short")
    }

    /// `restart()` is a no-op before the events are iterated (the first attempt is attempt 1,
    /// no restart counted), while suspended (nothing connects until `resume()`) and once the
    /// client is done.
    @Test func restartIsANoOpBeforeTheStartWhileSuspendedAndAfterTheEnd() async throws {
        let t = try EmbeddedClient { $0.reconnect = .finite }
        t.client.restart()
        t.run()
        #expect(t.client.state == .idle && t.connectionCount == 0)
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        #expect(t.client.statistics.restarts == 0)
        t.client.suspend()
        await t.waitForState("suspended") { $0 == .suspended }
        t.client.restart()
        t.run()
        #expect(t.client.state == .suspended && t.connectionCount == 1 && first.ended)
        t.client.resume()
        let second = try await t.sseAttempt(2)
        second.respond()
        second.finish()
        await rec.waitUntilFinished()
        t.client.restart()
        t.client.suspend()
        t.client.resume()
        t.run()
        #expect(t.client.state == .closed(nil) && t.connectionCount == 2, "done: nothing moves it")
        #expect(t.client.statistics.restarts == 0)
    }
}
#endif

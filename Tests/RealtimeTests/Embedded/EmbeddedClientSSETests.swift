#if os(Linux)
import CCurl
import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// `RealtimeClient` over the production SSE connection on the embedded stack (one manual
/// loop for the client's timers and the transport's, a scripted libcurl): reconnect after a
/// reset with the backoff and `Last-Event-ID`, the server's `retry:`, the idle timeout, a
/// clean end, a 204, exact resume waiting for the consumer.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSSETests {
    @Test func aResetIsRetriedAfterTheBackoffFromTheProcessedCursor() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond()
        first.event("a", id: "1")
        first.event("b", id: "2")
        first.reset()
        await rec.waitFor(5)
        #expect(rec.summary == "open(1) event(a) event(b) error(network,retry) closed(reconnect)")
        await t.waitForState("the backoff") { $0.isWaitingToRetry }
        t.advance(by: .milliseconds(999))
        #expect(t.connectionCount == 1, "not before the backoff")
        t.advance(by: .milliseconds(1))
        let second = try #require(t.sse(1))
        #expect(second.request.lastEventID == "2")
        second.respond()
        second.event("c", id: "3")
        await rec.waitFor(7)
        #expect(rec.summary.hasSuffix("open(2) event(c)"))
    }

    @Test func theServersRetryFieldSetsTheNextDelay() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond()
        first.event("a", id: "1", retry: 7000)
        first.finish()
        await rec.waitFor(3)
        await t.waitForState("the server's delay") { $0.isWaitingToRetry }
        t.advance(by: .milliseconds(6999))
        #expect(t.connectionCount == 1)
        t.advance(by: .milliseconds(1))
        #expect(t.sse(1)?.request.lastEventID == "1")
    }

    @Test func silenceBeyondTheIdleTimeoutIsADeadConnection() async throws {
        let t = try EmbeddedClient { $0.idleTimeout = .seconds(30) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond()
        first.event("a", id: "1")
        t.advance(by: .seconds(20))
        first.send(": comment keeps it alive\n\n")
        t.advance(by: .seconds(29))
        #expect(!first.ended, "bytes reset the idle timer")
        t.advance(by: .seconds(1))
        #expect(first.ended)
        await rec.waitFor(4)
        #expect(rec.summary == "open(1) event(a) error(idle_timeout,retry) closed(reconnect)")
    }

    @Test func noContentStopsTheClient() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.respond(status: 204, headers: [])
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "")
        #expect(t.client.state == .closed(nil))
        #expect(t.loop.pendingTimerCount == 0, "no timer outlives the client")
    }
}
#endif

import Realtime
import RealtimeTestSupport
import Testing

/// ``RealtimeClient/restart()``: the live connection closes cleanly and the next attempt
/// starts at once, with the processed cursor, without an error or a backoff.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientRestartNowTests {
    @Test func restartReconnectsAtOnceWithTheCursorAndNoFailure() async throws {
        let t = try TestClient()
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("b", id: "2")
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "event(a)")
        #expect(await it.next()?.short == "event(b)")
        await t.client.acknowledge()
        t.client.restart()
        #expect(await it.next()?.short == "closed(reconnect)")
        #expect(first.closed, "the live connection was closed")
        await t.client.acknowledge()
        // No clock advance: the second attempt needs no backoff.
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "2")
        #expect(t.clock.sleeperCount == 0, "no backoff timer")
        second.open()
        #expect(await it.next()?.short == "open(2)")
        let stats = t.client.statistics
        #expect(stats.errorsByClass.isEmpty, "a restart is not a failure")
        #expect(stats.restarts == 1)
    }

    @Test func restartCutsTheBackoffShort() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.fail(RealtimeError(.network))
        await rec.waitFor(4)
        await t.clock.waitForSleepers(1)  // the backoff (1 s) is running
        t.client.restart()
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "1")
    }
}

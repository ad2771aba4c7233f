#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// A cursor store whose `save` throws, over the production SSE connection on the embedded
/// stack: the failure is reported (`cursor_save_failed`, `willRetry` true) and counted, the
/// client goes on, the in-memory cursor is unaffected, and the next processed event saves the
/// newest cursor.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientCursorSaveFailureTests {
    struct DiskFull: Error {}

    /// A store that records every save it is asked for and throws for the ids in `failing`.
    static func store(failing: Set<String>, asked: LockedValue<[String]>) -> CursorStore {
        CursorStore(load: { nil }, save: { id in
            asked.withLock { $0.append(id) }
            if failing.contains(id) { throw DiskFull() }
        })
    }

    /// `save` throwing is an `.error` with code `cursor_save_failed` and `willRetry` true,
    /// counted in `statistics.cursorSaveFailures`; events keep coming, the client stays open.
    @Test func aFailedSaveIsReportedCountedAndTheClientGoesOn() async throws {
        let asked = LockedValue<[String]>([])
        let t = try EmbeddedClient { $0.cursorStore = Self.store(failing: ["1"], asked: asked) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.event("b", id: "2")
        first.event("c", id: "3")
        await rec.waitFor("event c") { $0.short == "event(c)" }
        let failure = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(failure.error.code == .cursorSaveFailed)
        #expect(failure.willRetry)
        #expect(failure.retryIn == nil)
        #expect(t.client.statistics.cursorSaveFailures == 1)
        guard case .open = t.client.state else { Issue.record("a failed save must not end the connection: \(t.client.state)"); return }
        #expect(rec.events.map(\.short).filter { $0.hasPrefix("event") } == ["event(a)", "event(b)", "event(c)"])
        await t.client.acknowledge()
        #expect(asked.withLock { $0 } == ["1", "2", "3"], "the next processed events are saved")
    }

    /// The cursor in memory is not affected by a store that keeps failing: the reconnect
    /// resumes from the last processed event.
    @Test func theReconnectStaysExactWhileTheStoreFails() async throws {
        let asked = LockedValue<[String]>([])
        let t = try EmbeddedClient { $0.cursorStore = Self.store(failing: ["1", "2"], asked: asked) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.event("b", id: "2")
        first.reset()
        await rec.waitFor("closed") { $0.closeEvent != nil }
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(t.client.lastEventID == "2")
        #expect(second.request.lastEventID == "2", "resumed from what was processed, not from the store")
        #expect(t.client.statistics.cursorSaveFailures == 2)
        #expect(rec.events.filter { $0.errorEvent?.error.code == .cursorSaveFailed }.count == 2)
    }
}
#endif

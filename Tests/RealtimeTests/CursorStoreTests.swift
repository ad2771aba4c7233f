import Foundation
@testable import Realtime
import RealtimeTestSupport
import Testing

/// A `CursorStore` whose `save` throws: the client says so (`cursor_save_failed`, counted),
/// goes on, keeps the cursor in memory, and saves the newest cursor at the next processed event.
@Suite(.timeLimit(.minutes(1))) struct CursorStoreTests {
    struct DiskFull: Error {}

    @Test func aFailedSaveIsReportedAndTheNextEventSavesTheNewestCursor() async throws {
        let attempts = Observed<[String]>([])
        let saved = Observed<[String]>([])
        let t = try TestClient {
            $0.cursorStore = CursorStore(load: { nil }, save: { cursor in
                attempts.update { $0.append(cursor) }
                if cursor == "1" { throw DiskFull() }
                saved.update { $0.append(cursor) }
            })
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("b", id: "2")
        await rec.waitFor("the save failure") { $0.errorEvent?.error.code == .cursorSaveFailed }
        let failure = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(failure.willRetry && failure.error.failureClass == .internal)
        #expect(failure.error.description.contains("DiskFull"), "the type is named: \(failure.error)")
        #expect(t.client.statistics.cursorSaveFailures == 1)
        #expect(t.client.lastEventID != nil, "the cursor in memory is not affected")
        first.message("c", id: "3")
        await saved.wait("the newest cursor saved") { $0.contains("3") || $0.contains("2") }
        #expect(attempts.value.first == "1")
        #expect(t.client.isConnected, "the connection goes on")
    }
}

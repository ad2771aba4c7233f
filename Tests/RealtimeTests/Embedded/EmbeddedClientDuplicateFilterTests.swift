#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Each `DuplicateFilter` through the production SSE connection on the embedded stack, beyond
/// the replayed snapshot of `EmbeddedClientDuplicateTests`: numeric comparison, an order of
/// your own, ids that cannot be judged, the window's bound, and an id-less event.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientDuplicateFilterTests {
    /// Opens the first attempt from cursor `cursor`, sends `ids` (each event's data is its
    /// id), and returns the ids the consumer got once the last one arrived.
    static func delivered(
        _ filter: DuplicateFilter, from cursor: String?, ids: [String?], last: String
    ) async throws -> (ids: [String], client: RealtimeClient, t: EmbeddedClient) {
        let t = try EmbeddedClient {
            $0.duplicates = filter
            $0.lastEventID = cursor
        }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        for id in ids { first.event(id ?? "-", id: id) }
        first.event("end", id: last)
        await rec.waitFor("the last event") { $0.short == "event(end)" }
        let texts = rec.events.compactMap { if case .event(let m) = $0 { m.text } else { nil } }
        return (texts.dropLast().map { $0 }, t.client, t)
    }

    /// `.numericIDs` compares as numbers: `"10"` comes after `"9"` (a string comparison would
    /// drop it), leading zeros are allowed, and an id that is not a decimal integer is never
    /// judged.
    @Test func numericIDsCompareAsNumbersAndNeverJudgeOtherIDs() async throws {
        let (ids, client, t) = try await Self.delivered(.numericIDs, from: "9", ids: ["8", "0009", "10", "x"], last: "11")
        defer { t.client.close() }
        #expect(ids == ["10", "x"])
        #expect(client.statistics.duplicatesDropped == 2)
    }

    /// `.ordered` drops what the given order puts at or before the committed cursor, and
    /// delivers the ids it cannot compare (it returns false).
    @Test func anOrderOfYourOwnDropsWhatComesAtOrBeforeTheCursor() async throws {
        // Versions "v1", "v2"…: comparable only with that prefix.
        let byVersion = DuplicateFilter.ordered { id, cursor in
            guard id.hasPrefix("v"), cursor.hasPrefix("v"), let a = Int(id.dropFirst()), let b = Int(cursor.dropFirst()) else { return false }
            return a <= b
        }
        let (ids, client, t) = try await Self.delivered(byVersion, from: "v10", ids: ["v2", "v10", "w3", "v11"], last: "v12")
        defer { t.client.close() }
        #expect(ids == ["w3", "v11"])
        #expect(client.statistics.duplicatesDropped == 2)
    }

    /// A dropped message counts as processed, the cursor staying where it was: a reconnect
    /// after only replays resumes from the same cursor, without waiting for the consumer.
    @Test func droppedReplaysKeepTheCursorAndDoNotHoldTheReconnect() async throws {
        let t = try EmbeddedClient {
            $0.duplicates = .numericIDs
            $0.lastEventID = "5"
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        for id in 3...5 { first.event("m\(id)", id: "\(id)") }
        first.reset()
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == "5")
        #expect(t.client.lastEventID == "5")
        #expect(rec.events.allSatisfy { if case .event = $0 { false } else { true } }, "nothing delivered: \(rec.summary)")
        #expect(t.client.statistics.duplicatesDropped == 3)
    }

    /// `.recentIDs(window:)` remembers only the last `window` processed ids: a replay of an
    /// id still in the window is dropped, one that left it is delivered again.
    @Test func theWindowBoundsWhatIsRemembered() async throws {
        let t = try EmbeddedClient { $0.duplicates = .recentIDs(window: 2) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        for id in ["a", "b", "c"] { first.event(id, id: id) }
        first.reset()
        await rec.waitFor("the close") { $0.closeEvent != nil }
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        second.respond()
        // Not "c" first: the id the connection resumed from is let through at its start.
        for id in ["b", "c", "a"] { second.event("again \(id)", id: id) }
        second.event("end", id: "d")
        await rec.waitFor("the last event") { $0.short == "event(end)" }
        let texts = rec.events.compactMap { if case .event(let m) = $0 { m.text } else { nil } }
        #expect(texts == ["a", "b", "c", "again a", "end"], "b and c are in the window, a left it")
        #expect(t.client.statistics.duplicatesDropped == 2)
    }

    /// An SSE event without an `id:` field shares the fate of the event before it on its
    /// connection: dropped after a dropped replay, delivered after a delivered event.
    @Test func anEventWithoutAnIDSharesTheFateOfTheOneBeforeIt() async throws {
        let (ids, client, t) = try await Self.delivered(.numericIDs, from: "5", ids: ["4", nil, "6", nil], last: "7")
        defer { t.client.close() }
        #expect(ids == ["6", "-"])
        #expect(client.statistics.duplicatesDropped == 2)
    }

    /// At the start of a connection an event whose id equals the cursor it resumed from is
    /// delivered (it may be a new event without an id): a server that replays from the cursor
    /// inclusive gets that one event through again.
    @Test func theResumedFromCursorAtTheStartOfAConnectionIsDelivered() async throws {
        let (ids, client, t) = try await Self.delivered(.numericIDs, from: "5", ids: ["5", "6"], last: "7")
        defer { t.client.close() }
        #expect(ids == ["5", "6"])
        #expect(client.statistics.duplicatesDropped == 0)
    }
    /// On a WebSocket the filter judges the id `messageID` reads from each message: a server
    /// that replays on resume has the replays dropped, and the next URL carries the cursor.
    @Test func onAWebSocketTheIDsMessageIDReadsAreJudged() async throws {
        let t = try EmbeddedClient("ws://peer.test/ws") {
            $0.resumeWithIDPipeFraming()
            $0.duplicates = .numericIDs
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.webSocketAttempt(1)
        first.accept()
        for text in ["1|a", "2|b"] { first.sendText(text) }
        first.reset()
        await rec.waitFor("the close") { $0.closeEvent != nil }
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        #expect(second.request.url.query == "after=2")
        second.accept()
        for text in ["1|a", "2|b", "3|c"] { second.sendText(text) }
        await rec.waitFor("event 3") { $0.short == "event(3|c)" }
        let texts = rec.events.compactMap { if case .event(let m) = $0 { m.text } else { nil } }
        #expect(texts == ["1|a", "2|b", "3|c"])
        #expect(t.client.statistics.duplicatesDropped == 2)
    }
}
#endif

import RealtimeCore
import Testing

/// ``DuplicateFilter`` applied by the consumer's ``ResumeLedger``: ordered ids at or below the
/// committed cursor, a bounded window of recent ids, SSE ids that carry over, and the dropped
/// messages counting as processed without moving the cursor.
@Suite(.timeLimit(.minutes(1))) struct ResumeLedgerDuplicateTests {
    /// Feeds a consumer that takes every admitted message and processes it (commit before the
    /// next, like the client's consumer); `nil` opens a connection. Returns what it handed over.
    static func consume(_ ledger: inout ResumeLedger, _ ids: [String?], from first: UInt64 = 1) -> [String] {
        var handed: [String] = []
        var sequence = first
        for id in ids {
            _ = ledger.commit()
            defer { sequence += 1 }
            guard let id else {
                let opened = ledger.admit(sequence, id: nil, opensConnection: true)
                #expect(opened, "an open is never dropped")
                ledger.deliver(sequence, id: nil)
                continue
            }
            guard ledger.admit(sequence, id: id, opensConnection: false) else { continue }
            ledger.deliver(sequence, id: id)
            handed.append(id)
        }
        _ = ledger.commit()
        return handed
    }

    static func ledger(_ filter: DuplicateFilter, sse: Bool = true, cursor: String? = nil) -> ResumeLedger {
        ResumeLedger(cursor: cursor, duplicates: DuplicateTracker(filter: filter, idsCarryOver: sse))
    }

    @Test func numericIDsAtOrBelowTheCursorAreDroppedOnResume() {
        var l = Self.ledger(.numericIDs)
        #expect(Self.consume(&l, [nil, "1", "2", "3"]) == ["1", "2", "3"])
        #expect(l.cursor == "3")
        // The server replays its snapshot on resume: 1…3 again, then new events.
        #expect(Self.consume(&l, [nil, "1", "2", "3", "4", "5"], from: 5) == ["4", "5"])
        #expect(l.cursor == "5" && l.duplicatesDropped == 3)
        #expect(l.processed == 10, "dropped messages count as processed (a reconnect does not wait for them)")
    }

    @Test func numericComparisonIsByValueNotByText() {
        var l = Self.ledger(.numericIDs, cursor: "9")
        #expect(Self.consume(&l, [nil, "8", "09", "10", "100", "0011"]) == ["10", "100"])
        #expect(l.duplicatesDropped == 3)
        var big = Self.ledger(.numericIDs, cursor: "18446744073709551616")  // 2^64
        #expect(Self.consume(&big, [nil, "18446744073709551615", "18446744073709551617"]) == ["18446744073709551617"])
    }

    @Test func idsThatAreNotNumbersAreNeverJudged() {
        var l = Self.ledger(.numericIDs, cursor: "5")
        #expect(Self.consume(&l, [nil, "abc", "-1", "", "1e3"]) == ["abc", "-1", "", "1e3"])
        var textCursor = Self.ledger(.numericIDs, cursor: "abc")
        #expect(Self.consume(&textCursor, [nil, "1"]) == ["1"])
        #expect(l.duplicatesDropped == 0 && textCursor.duplicatesDropped == 0)
    }

    @Test func aCustomOrderDecides() {
        // Ids like "2024-05-01T10:00:00Z" order as text.
        var l = Self.ledger(.ordered { id, cursor in id <= cursor }, cursor: "b")
        #expect(Self.consume(&l, [nil, "a", "b", "c"]) == ["c"])
    }

    @Test func anSSEEventRepeatingTheIDBeforeItIsNotJudged() {
        // Events without an `id:` field carry the last id: after a resume from 3 the first
        // one repeats 3 and may be new; one repeating the id before it shares its fate.
        var l = Self.ledger(.numericIDs, cursor: "3")
        #expect(Self.consume(&l, [nil, "3", "3", "4", "4", "2", "2", nil, "4"]) == ["3", "3", "4", "4", "4"])
        #expect(l.duplicatesDropped == 2, "the id-less event after a dropped one goes with it")
    }

    @Test func webSocketIDsAreEachMessagesOwn() {
        var l = Self.ledger(.numericIDs, sse: false, cursor: "3")
        #expect(Self.consume(&l, [nil, "3", "3", "4"]) == ["4"])
        #expect(l.duplicatesDropped == 2)
    }

    @Test func recentIDsDropWhatWasProcessedWithinTheWindow() {
        var l = Self.ledger(.recentIDs(window: 3), sse: false)
        #expect(Self.consume(&l, [nil, "a", "b", "c", "d"]) == ["a", "b", "c", "d"])
        #expect(l.duplicates?.windowCount == 3, "the window is bounded")
        // "a" left the window when "d" came; b, c, d are in it.
        #expect(Self.consume(&l, [nil, "d", "c", "b", "a", "e"], from: 6) == ["a", "e"])
        #expect(l.duplicatesDropped == 3 && l.cursor == "e")
        #expect(l.duplicates?.windowCount == 3)
    }

    @Test func onlyProcessedIDsJoinTheWindow() {
        var l = Self.ledger(.recentIDs(), sse: false)
        let first = l.admit(1, id: "x", opensConnection: false)
        #expect(first)
        l.deliver(1, id: "x")
        // Not processed yet (the consumer failed and the client restarted with the ledger's
        // cursor): the same id is not a duplicate.
        #expect(l.duplicates?.windowCount == 0)
        _ = l.commit()
        let again = l.admit(2, id: "x", opensConnection: false)
        #expect(!again)
        #expect(l.cursor == "x" && l.processed == 2)
    }

    @Test func theDefaultWindowIsDocumented() {
        #expect(DuplicateFilter.defaultWindow == 1024)
        #expect(!DuplicateFilter.recentIDs(window: 0).isValid)
        #expect(DuplicateFilter.recentIDs().isValid && DuplicateFilter.numericIDs.isValid)
    }

    @Test func withoutAFilterEverythingIsAdmitted() {
        var l = ResumeLedger(cursor: "9")
        #expect(Self.consume(&l, [nil, "1", "9", "9"]) == ["1", "9", "9"])
        #expect(l.duplicatesDropped == 0)
    }
}

import RealtimeCore
import Testing

/// The cursor follows what the consumer processed, never what it only received.
@Suite(.timeLimit(.minutes(1))) struct ResumeLedgerTests {
    @Test func cursorIsTheNewestProcessedID() {
        var l = ResumeLedger(cursor: "0")
        #expect(l.emit(3) == 1)
        l.deliver(1, id: "a")
        #expect(l.cursor == "0", "handed over, not processed")
        #expect(l.commit() == "a")
        l.deliver(2, id: nil)
        #expect(l.commit() == nil, "an event without an id keeps the cursor")
        l.deliver(3, id: "a")
        #expect(l.commit() == nil, "unchanged: nothing to save")
        #expect(l.cursor == "a" && l.caughtUp)
    }

    @Test func emptyIDResetsTheCursor() {
        var l = ResumeLedger(cursor: "7")
        _ = l.emit(1)
        l.deliver(1, id: "")
        #expect(l.commit() == "")
        #expect(l.cursor == "")
    }

    @Test func loadedCursorDoesNotReplaceAConfiguredOne() {
        var configured = ResumeLedger(cursor: "9")
        configured.load("1")
        #expect(configured.cursor == "9")
        var empty = ResumeLedger(cursor: nil)
        empty.load("1")
        #expect(empty.cursor == "1")
    }

    @Test func caughtUpOnlyWhenEverythingEmittedWasProcessed() {
        var l = ResumeLedger(cursor: nil)
        #expect(l.caughtUp)
        _ = l.emit(2)
        l.deliver(1, id: nil)
        _ = l.commit()
        #expect(!l.caughtUp)
        l.deliver(2, id: nil)
        _ = l.commit()
        #expect(l.caughtUp)
    }
}

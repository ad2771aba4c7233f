import RealtimeCore
import Testing

/// The cursor follows what the consumer processed, never what it only received.
@Suite(.timeLimit(.minutes(1))) struct ResumeLedgerTests {
    @Test func cursorIsTheNewestProcessedID() {
        var l = ResumeLedger(cursor: "0")
        l.deliver(1, id: "a")
        #expect(l.cursor == "0", "handed over, not processed")
        #expect(l.commit() == "a")
        l.deliver(2, id: nil)
        #expect(l.commit() == nil, "an event without an id keeps the cursor")
        l.deliver(3, id: "a")
        #expect(l.commit() == nil, "unchanged: nothing to save")
        #expect(l.cursor == "a" && l.processed == 3 && l.cursorSequence == 3)
    }

    @Test func emptyIDResetsTheCursor() {
        var l = ResumeLedger(cursor: "7")
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

    @Test func progressIsWhatWasProcessed() {
        var l = ResumeLedger(cursor: nil)
        l.deliver(1, id: "a")
        l.deliver(2, id: "b")
        #expect(l.progress == ConsumerProgress(processed: 0, cursor: nil, cursorSequence: 0), "handed over only")
        _ = l.commit()
        #expect(l.progress == ConsumerProgress(processed: 2, cursor: "b", cursorSequence: 2))
    }
}

/// The consumer's side of the resume cursor: which events the consumer was handed, which it
/// has processed, and the cursor that follows. Kept by the consumer (under a lock of its
/// own, so the I/O thread and the consumer never contend for one lock per event); the
/// ``ClientStateMachine`` learns its progress through
/// ``ClientStateMachine/consumerProcessed(_:now:)``.
///
/// Every event the client emits has a sequence number (1, 2, …) in emission order and is
/// handed over in that order; an event counts as *processed* once the consumer asks for the
/// next one or acknowledges it. The cursor is the id of the newest processed event that
/// carried one (an SSE event's last event ID at dispatch, WHATWG HTML §9.2.6, or the id
/// `Configuration.messageID` read from a WebSocket message): never an id that was only
/// received, and never one older than before.
package struct ResumeLedger: Sendable, Hashable {
    /// The committed cursor: sent as `Last-Event-ID` (and given to `resumeURL`) on reconnect.
    package private(set) var cursor: String?
    /// Sequence number of the last event handed to the consumer.
    package internal(set) var delivered: UInt64 = 0
    /// Sequence number of the last event the consumer processed.
    package internal(set) var processed: UInt64 = 0
    /// The id carried by the event last handed over, until it is processed.
    private var deliveredID: String?
    /// Sequence number of the event the cursor came from (0: configured or loaded).
    package private(set) var cursorSequence: UInt64 = 0
    /// Applies the configured ``DuplicateFilter`` (see `ResumeLedger+Duplicates.swift`).
    package internal(set) var duplicates: DuplicateTracker?
    /// A cursor committed by the driver and not yet given to the cursor store (the events
    /// after it were dropped duplicates): saved at the next commit.
    package var unsaved: String?

    package init(cursor: String?, duplicates: DuplicateTracker? = nil) {
        self.cursor = cursor
        self.duplicates = duplicates
    }

    /// What the state machine needs to know of the consumer's progress.
    package var progress: ConsumerProgress {
        ConsumerProgress(processed: processed, cursor: cursor, cursorSequence: cursorSequence)
    }

    /// A cursor loaded from a store, used only when none was configured.
    package mutating func load(_ loaded: String?) {
        if cursor == nil, cursorSequence == 0 { cursor = loaded }
    }

    /// The consumer was handed event `sequence`, carrying `id` (nil when it has none).
    package mutating func deliver(_ sequence: UInt64, id: String?) {
        precondition(sequence > delivered, "events are handed over once, in emission order")
        delivered = sequence
        deliveredID = id
    }

    /// Everything handed over so far is processed. Returns the cursor when this changed it.
    package mutating func commit() -> String? {
        processed = delivered
        guard let id = deliveredID else { return nil }
        deliveredID = nil
        cursorSequence = delivered
        duplicates?.processed(id: id)
        guard id != cursor else { return nil }
        cursor = id
        return id
    }
}

/// How far the consumer got: the last event it processed and the cursor that follows.
package struct ConsumerProgress: Sendable, Hashable {
    package var processed: UInt64
    package var cursor: String?
    /// Sequence number of the event the cursor came from (0: configured or loaded).
    package var cursorSequence: UInt64

    package init(processed: UInt64, cursor: String?, cursorSequence: UInt64) {
        self.processed = processed
        self.cursor = cursor
        self.cursorSequence = cursorSequence
    }
}

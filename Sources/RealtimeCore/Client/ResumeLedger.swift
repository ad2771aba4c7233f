/// The resume cursor's bookkeeping: which events were emitted to the consumer's buffer, which
/// the consumer was handed, which it has processed, and the cursor that follows from that.
///
/// Every event the client emits gets a sequence number (1, 2, …) in emission order. The
/// consumer is handed them in that order; an event counts as *processed* once the consumer
/// asks for the next one or acknowledges it. The cursor is the id of the newest processed
/// event that carried one (an SSE event's last event ID at dispatch, WHATWG HTML §9.2.6, or
/// the id `Configuration.messageID` read from a WebSocket message): never an id that was only
/// received, and never an older one than before.
package struct ResumeLedger: Sendable, Hashable {
    /// The committed cursor: sent as `Last-Event-ID` (and given to `resumeURL`) on reconnect.
    package private(set) var cursor: String?
    /// Sequence number of the last event emitted (0 before the first).
    package private(set) var emitted: UInt64 = 0
    /// Sequence number of the last event handed to the consumer.
    package private(set) var delivered: UInt64 = 0
    /// Sequence number of the last event the consumer processed.
    package private(set) var processed: UInt64 = 0
    /// The id carried by the event last handed over, until it is processed.
    private var deliveredID: String?
    /// Sequence number of the event the cursor came from (0: configured or loaded).
    package private(set) var cursorSequence: UInt64 = 0

    package init(cursor: String?) {
        self.cursor = cursor
    }

    /// Whether the consumer has processed everything emitted so far.
    package var caughtUp: Bool { processed == emitted }

    /// Numbers `count` events about to be emitted; returns the first one's number.
    package mutating func emit(_ count: Int) -> UInt64 {
        let first = emitted &+ 1
        emitted &+= UInt64(count)
        return first
    }

    /// A cursor loaded from a store, used only when none was configured.
    package mutating func load(_ loaded: String?) {
        if cursor == nil { cursor = loaded }
    }

    /// The consumer was handed event `sequence`, carrying `id` (nil when it has none).
    package mutating func deliver(_ sequence: UInt64, id: String?) {
        precondition(sequence > delivered && sequence <= emitted, "events are handed over once, in emission order")
        delivered = sequence
        deliveredID = id
    }

    /// Everything handed over so far is processed. Returns the cursor when this changed it.
    package mutating func commit() -> String? {
        processed = delivered
        guard let id = deliveredID else { return nil }
        deliveredID = nil
        cursorSequence = delivered
        guard id != cursor else { return nil }
        cursor = id
        return id
    }
}

extension ResumeLedger {
    /// Event `sequence`, carrying `id` (`opensConnection`: it is a connection's `open`), is
    /// next for the consumer, and everything before it is committed. Returns false when the
    /// configured ``DuplicateFilter`` drops it: it then counts as processed at once, leaves
    /// the cursor where it is, and must not be handed over.
    package mutating func admit(_ sequence: UInt64, id: String?, opensConnection: Bool) -> Bool {
        guard var tracker = duplicates else { return true }
        defer { duplicates = tracker }
        if opensConnection {
            tracker.connectionOpened(cursor: cursor)
            return true
        }
        guard tracker.judge(id: id, cursor: cursor) else { return true }
        precondition(sequence > delivered && processed == delivered, "a duplicate is judged after the commit before it")
        delivered = sequence
        processed = sequence
        return false
    }

    /// Messages the filter dropped so far.
    package var duplicatesDropped: Int { duplicates?.dropped ?? 0 }
}

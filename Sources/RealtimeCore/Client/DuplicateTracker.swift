/// What ``ResumeLedger`` keeps to apply a ``DuplicateFilter``: the id before the next
/// message on the connection (SSE ids carry over) and, for ``DuplicateFilter/recentIDs(window:)``,
/// the window of processed ids. Pure data, kept under the consumer's lock.
package struct DuplicateTracker: Sendable {
    let filter: DuplicateFilter
    /// SSE: an event without an `id:` field repeats the id before it, so a repeated id is
    /// not judged: the message shares the fate of the one before it.
    let idsCarryOver: Bool
    /// The id of the message handed over (or dropped) last on this connection; at the start of
    /// a connection, the cursor it resumed from.
    private var previousID: String?
    /// Whether that message was dropped (false at the start of a connection).
    private var previousDropped = false
    /// The window of processed ids (``DuplicateFilter/recentIDs(window:)`` only).
    private var recent: RecentSet<String>?
    /// Messages dropped so far.
    package private(set) var dropped = 0

    package init(filter: DuplicateFilter, idsCarryOver: Bool) {
        self.filter = filter
        self.idsCarryOver = idsCarryOver
        if case .recent(let window) = filter.base { recent = RecentSet(capacity: window) }
    }

    /// A connection opened, resuming from `cursor`.
    mutating func connectionOpened(cursor: String?) {
        previousID = cursor
        previousDropped = false
    }

    /// Whether a message carrying `id` is a duplicate, given the committed `cursor`; a
    /// duplicate is counted. Call once per message, in order.
    mutating func judge(id: String?, cursor: String?) -> Bool {
        guard let id, !id.isEmpty else { return false }
        let duplicate: Bool
        if idsCarryOver && id == previousID {
            // Without an `id:` of its own, it belongs with the event before it.
            duplicate = previousDropped
        } else {
            switch filter.base {
            case .ordered(let isAtOrBefore):
                duplicate = cursor.map { isAtOrBefore(id, $0) } ?? false
            case .recent:
                duplicate = recent?.contains(id) ?? false
            }
        }
        previousID = id
        previousDropped = duplicate
        if duplicate { dropped += 1 }
        return duplicate
    }

    /// The consumer processed a message carrying `id`: it joins the window of recent ids.
    mutating func processed(id: String) {
        guard !id.isEmpty else { return }
        recent?.insert(id)
    }

    /// Ids in the window (tests).
    package var windowCount: Int { recent?.count ?? 0 }
}

extension DuplicateTracker: Hashable {
    // The filter's closure has no identity: two trackers are equal when they hold the same state.
    package static func == (a: DuplicateTracker, b: DuplicateTracker) -> Bool {
        a.idsCarryOver == b.idsCarryOver && a.previousID == b.previousID && a.previousDropped == b.previousDropped
            && a.recent == b.recent && a.dropped == b.dropped
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(previousID)
        hasher.combine(dropped)
        hasher.combine(recent?.count ?? 0)
    }
}

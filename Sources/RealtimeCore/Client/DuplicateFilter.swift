/// Which messages the client drops as already processed (`RealtimeClient.Configuration.duplicates`):
/// for servers that replay what the client already has (a snapshot, or the last events)
/// when it resumes. Off by default: every message is delivered.
///
/// Only messages with an id are judged: an SSE event's id (WHATWG HTML §9.2.6), or what
/// `Configuration.messageID` reads from a WebSocket message. A dropped message counts as
/// processed (it does not hold back a reconnect, the cursor stays where it was) and is
/// counted in `ClientStatistics.duplicatesDropped`.
///
/// **SSE ids carry over.** An SSE event without an `id:` field repeats the id before it, so
/// an event whose id equals the one before it on the same connection is not judged by its id:
/// it shares the fate of the event before it (dropped with a dropped one). At the start of a
/// connection the id before it is the cursor the connection resumed from, and such an event
/// is delivered: it may be a new event without an id of its own. A server that replays from
/// the cursor *inclusive* therefore gets that one event through again.
///
/// The filter applies to ``RealtimeClient/events`` and `consume`; ``RealtimeClient/batches``
/// hands every message over.
public struct DuplicateFilter: Sendable {
    enum Base: Sendable {
        case ordered(@Sendable (_ id: String, _ cursor: String) -> Bool)
        case recent(window: Int)
    }

    let base: Base

    /// Ids are decimal integers (`"42"`, leading zeros allowed, any length) that grow with
    /// each message: a message whose id is at or below the committed cursor, compared as
    /// numbers, is dropped. An id or cursor that is not a decimal integer is never judged.
    public static let numericIDs = DuplicateFilter(base: .ordered(DuplicateFilter.isNumericallyAtOrBelow))

    /// Ids are ordered by the server: `isAtOrBefore(id, cursor)` says whether `id` comes at or
    /// before the committed `cursor` (the message was processed). Return false for ids it
    /// cannot compare: they are delivered.
    public static func ordered(_ isAtOrBefore: @escaping @Sendable (_ id: String, _ cursor: String) -> Bool) -> DuplicateFilter {
        DuplicateFilter(base: .ordered(isAtOrBefore))
    }

    /// Ids have no order: a message whose id is among the last `window` distinct ids the
    /// consumer processed is dropped. Memory is bounded by the window (and the ids' length).
    /// Default window ``defaultWindow``.
    public static func recentIDs(window: Int = DuplicateFilter.defaultWindow) -> DuplicateFilter {
        DuplicateFilter(base: .recent(window: window))
    }

    /// The default window of ``recentIDs(window:)``: 1,024 ids.
    public static let defaultWindow = 1024

    /// Whether the configuration can work (a window of at least 1).
    package var isValid: Bool {
        if case .recent(let window) = base { return window >= 1 }
        return true
    }

    /// Decimal comparison of any length: false when either is not a decimal integer.
    static func isNumericallyAtOrBelow(_ id: String, _ cursor: String) -> Bool {
        guard let a = digits(id), let b = digits(cursor) else { return false }
        if a.count != b.count { return a.count < b.count }
        return !b.lexicographicallyPrecedes(a)
    }

    /// The digits without leading zeros ("0" stays one digit), nil when not all are digits.
    private static func digits(_ s: String) -> Substring.UTF8View? {
        let utf8 = s.utf8
        guard !utf8.isEmpty, utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let significant = Substring(s).utf8.drop { $0 == UInt8(ascii: "0") }
        return significant.isEmpty ? Substring("0").utf8 : significant
    }
}

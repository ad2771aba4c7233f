extension SSEParser {
    /// What the parser produces, in stream order.
    package enum Output: Sendable, Hashable {
        /// A dispatched event (WHATWG HTML §9.2.6, "dispatch the event").
        case event(ServerSentEvent)
        /// A valid `retry` field: the server's reconnection time in milliseconds (only ASCII
        /// digits are accepted; values beyond `Int.max` saturate).
        case retry(milliseconds: Int)
    }
}

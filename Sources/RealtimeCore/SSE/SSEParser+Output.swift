extension SSEParser {
    /// What the parser produces, in stream order.
    public enum Output: Sendable, Hashable {
        /// A dispatched event (WHATWG HTML §9.2.6, "dispatch the event").
        case event(ServerSentEvent)
        /// A valid `retry` field: the server's reconnection time in milliseconds (only ASCII
        /// digits are accepted; values beyond `Int.max` saturate).
        case retry(milliseconds: Int)
        /// A comment line's text after the colon, less one leading space (decoded with U+FFFD
        /// for invalid UTF-8): only from a parser made with `reportsComments`. Comments do not
        /// dispatch, reset or delay an event; an event's lines around them are unaffected.
        case comment(String)
    }
}

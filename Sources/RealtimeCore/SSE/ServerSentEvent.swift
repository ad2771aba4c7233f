/// One dispatched Server-Sent Event (WHATWG HTML §9.2.6 "dispatch the event").
///
/// All three fields are always present: ``type`` is `"message"` when the stream set no
/// `event` field (or an empty one), and ``lastEventID`` is the last event ID *at dispatch*,
/// which persists across events until the server sends another `id` field.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the `event` field, or `"message"` by default.
    public var type: String
    /// The `data` lines joined with LF (no trailing LF), decoded as UTF-8 with U+FFFD for
    /// invalid sequences.
    public var data: String
    /// The last event ID string when this event was dispatched (empty if none was ever set).
    public var lastEventID: String

    /// An event; for tests and transports of your own.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}

/// What `RealtimeClient.batches` yields: the client's events as ``ClientEvent`` has them,
/// with the messages that arrived together grouped in one ``MessageBatch``.
public enum ClientBatchEvent: Sendable {
    /// A connection is live.
    case open(ConnectionInfo)
    /// Messages, in order (never empty).
    case messages(MessageBatch)
    /// Something failed; says whether and when the client retries.
    case error(ErrorEvent)
    /// The connection ended; says whether a reconnect attempt follows.
    case closed(CloseEvent)
}

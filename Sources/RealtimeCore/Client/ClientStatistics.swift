/// Counters of a client's life, readable at any time through `RealtimeClient.statistics`
/// (bridge them to a metrics system by polling).
public struct ClientStatistics: Sendable, Hashable {
    /// Connection attempts started (transports made and started).
    public var attempts = 0
    /// Attempts that opened a live stream.
    public var connections = 0
    /// Attempts after the first (reconnects, whatever their cause).
    public var reconnects: Int { max(0, attempts - 1) }
    /// Messages handed to the event buffer.
    public var messages = 0
    /// Payload bytes of those messages (UTF-8 bytes for text, SSE `data` without framing).
    public var bytes = 0
    /// Messages the connection accepted from ``RealtimeClient/send(_:flush:)`` (WebSocket), live or
    /// from the outbox.
    public var messagesSent = 0
    /// Payload bytes of those messages (before framing, masking and compression).
    public var bytesSent = 0
    /// Connections open now: 0 or 1 for a client (``RealtimeClient/isConnected``).
    public var openConnections = 0
    /// Failures reported, by failure class (`network`, `http`, `timeout`, …). A failure the
    /// policy wraps (`retries_exhausted`, `request_not_repeatable`, `circuit_open`) counts as
    /// the class of its cause (``RealtimeError/underlying``), e.g. `http` for a 503.
    public var errorsByClass: [RealtimeError.FailureClass: Int] = [:]
    /// Times the client started waiting for the network (a network monitor said it was gone).
    public var networkWaits = 0
    /// Reconnects the application asked for (`RealtimeClient.restart()`); not failures.
    public var restarts = 0
    /// Messages dropped as already processed (`Configuration.duplicates`); also counted in
    /// ``messages``.
    public var duplicatesDropped = 0
    /// Times the cursor store's `save` threw (`cursor_save_failed`).
    public var cursorSaveFailures = 0

    /// Statistics with every counter at zero.
    package init() {}
}

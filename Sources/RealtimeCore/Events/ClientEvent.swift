/// The one stream users switch over, identical for SSE and WebSocket.
public enum ClientEvent: Sendable {
    /// A connection is live and ready: the transport is open and the client's on-open hook
    /// (`RealtimeClient.Configuration.onOpen`, the application's handshake), if any, returned.
    case open(ConnectionInfo)
    /// A message arrived.
    case event(Message)
    /// Something failed; says whether and when the client retries.
    case error(ErrorEvent)
    /// The connection ended; says whether a reconnect attempt follows. Always pairs with the
    /// `open` before it: an attempt that never opened (refused, or an SSE 204 "do not
    /// reconnect") emits an `error` or nothing, never a `closed`.
    case closed(CloseEvent)
}

/// A failure as reported to the user.
public struct ErrorEvent: Sendable, Hashable {
    public var error: RealtimeError
    /// Whether the client will make another connection attempt.
    public var willRetry: Bool
    /// Delay before that attempt: the backoff, or longer when a shared retry budget booked a
    /// later slot (the real delay either way); nil when not retrying or when waiting for the
    /// network.
    public var retryIn: Duration?
    /// The attempt number that failed.
    public var attempt: Int

    public init(error: RealtimeError, willRetry: Bool, retryIn: Duration?, attempt: Int) {
        self.error = error
        self.willRetry = willRetry
        self.retryIn = retryIn
        self.attempt = attempt
    }
}

/// The end of one connection.
public struct CloseEvent: Sendable, Hashable {
    /// True for an orderly end: a WebSocket close handshake, or an SSE stream that ended
    /// normally. False when the connection was cut or failed.
    public var clean: Bool
    /// WebSocket close code (RFC 6455 §7.4), when one was received.
    public var code: UInt16?
    /// WebSocket close reason, when one was received.
    public var reason: String?
    /// Whether the client will connect again.
    public var willReconnect: Bool

    public init(clean: Bool, code: UInt16? = nil, reason: String? = nil, willReconnect: Bool) {
        self.clean = clean
        self.code = code
        self.reason = reason
        self.willReconnect = willReconnect
    }
}

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
    /// What went wrong.
    public var error: RealtimeError
    /// Whether the client will make another connection attempt.
    public var willRetry: Bool
    /// Delay before that attempt: the backoff, or longer when a shared retry budget booked a
    /// later slot (the real delay either way); nil when not retrying or when waiting for the
    /// network.
    public var retryIn: Duration?
    /// The attempt number that failed.
    public var attempt: Int

    /// An error event; for tests and custom drivers.
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
    /// WebSocket close code, as RFC 6455 §7.1.5 defines it: the one in the server's close
    /// frame, 1005 when that frame had none, 1006 when the connection ended without a close
    /// frame from the server (a cut, a heartbeat or idle timeout, a violation we detected, a
    /// `close()` the server did not answer). The code this client sent when it failed the
    /// connection is the preceding error's ``RealtimeError/closeCode``. Nil for SSE.
    public var code: UInt16?
    /// WebSocket close reason from the server's close frame (§7.1.6), nil when none came.
    public var reason: String?
    /// Whether the client will connect again.
    public var willReconnect: Bool

    /// A close event; for tests and custom drivers.
    public init(clean: Bool, code: UInt16? = nil, reason: String? = nil, willReconnect: Bool) {
        self.clean = clean
        self.code = code
        self.reason = reason
        self.willReconnect = willReconnect
    }
}

/// What one connection attempt reports to its owner (the client's state machine).
///
/// A transport emits at most one `opened`, then any number of `message`/`messages`/`retryHint`,
/// and always exactly one terminal `ended`, after which its stream finishes.
@_spi(Transport)
public enum TransportEvent: Sendable {
    /// The connection is live (SSE: 200 + `text/event-stream`; WebSocket: 101 accepted).
    case opened(ConnectionInfo)
    /// A complete message.
    case message(Message)
    /// Complete messages that arrived together, in order: only from a transport asked for
    /// them (`TransportRequest.prefersMessageBatches`; SSE), in place of `message`s.
    case messages(MessageBatch)
    /// The server asked for a reconnection delay (SSE `retry:` field, WHATWG §9.2.6).
    case retryHint(Duration)
    /// The attempt is over. `error` is nil for an orderly end: an SSE body that ended, or a
    /// WebSocket close handshake with a normal code.
    case ended(TransportEnd)
}

/// How one connection attempt ended.
@_spi(Transport)
public struct TransportEnd: Sendable, Hashable {
    /// True for an orderly end (SSE EOF on a complete response, a WebSocket close handshake).
    public var clean: Bool
    /// The WebSocket close code of the server's close frame (RFC 6455 §7.1.5): 1005 when that
    /// frame carried no code, 1006 when the connection opened and ended without one (a cut, a
    /// timeout, a violation we detected; 1006 is never sent on the wire, §7.4.1). Never the
    /// code this client sent: a failure carries ours as its error's
    /// ``RealtimeError/closeCode``. Nil for SSE and for an attempt that never opened.
    public var code: UInt16?
    /// The reason in the server's close frame (RFC 6455 §7.1.6; empty when it had none), nil
    /// when none came.
    public var reason: String?
    /// Why it ended, when it was not an orderly end the server asked for.
    public var error: RealtimeError?
    /// True when the server explicitly asked not to reconnect (SSE HTTP 204).
    public var doNotReconnect: Bool
    /// True when any byte of the request may have reached the server before the end (a
    /// response was seen, or the request was being written); false only when none can have
    /// (DNS, connect, proxy or TLS failure, a connect timeout before the request). A
    /// non-idempotent request (POST) is repeated only when this is false.
    public var requestWasDelivered: Bool

    /// How an attempt ended; for custom transports and tests.
    public init(
        clean: Bool, code: UInt16? = nil, reason: String? = nil, error: RealtimeError? = nil,
        doNotReconnect: Bool = false, requestWasDelivered: Bool = true
    ) {
        self.clean = clean
        self.code = code
        self.reason = reason
        self.error = error
        self.doNotReconnect = doNotReconnect
        self.requestWasDelivered = requestWasDelivered
    }
}

/// Which wire protocol carries a connection.
public enum TransportKind: String, Sendable, Hashable, CustomStringConvertible {
    /// Server-Sent Events over HTTP(S) (`http`/`https` URLs).
    case sse
    /// WebSocket, RFC 6455 (`ws`/`wss` URLs).
    case webSocket = "websocket"

    public var description: String { rawValue }
}

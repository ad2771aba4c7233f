/// A connection that ended, or one namespace the server disconnected.
public struct SocketIODisconnection: Sendable {
    /// nil when the whole connection ended; a namespace when the server disconnected only it.
    public let namespace: String?
    /// Why: the client's error (network, heartbeat, protocol) as ``SocketIOError/underlying``,
    /// or the Socket.IO reason; nil for a clean close.
    public let error: SocketIOError?
    /// Whether the client connects again (with backoff, then the handshake). False for a
    /// namespace the server disconnected: the client does not join it again on this
    /// connection, only on the next one, should the connection end for another reason.
    public let willReconnect: Bool
}

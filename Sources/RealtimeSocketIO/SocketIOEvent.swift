/// What ``SocketIOClient/events`` yields.
public enum SocketIOEvent: Sendable {
    /// A connection is ready: every namespace joined and the connect hook done.
    case connected(SocketIOConnection)
    /// An event the server emitted.
    case event(SocketIOMessage)
    /// A connection ended, or the server disconnected one namespace.
    case disconnected(SocketIODisconnection)
}

/// An event the server emitted (EVENT or BINARY_EVENT, Socket.IO protocol v5).
public struct SocketIOMessage: Sendable, Hashable {
    /// The namespace it came on (`/` by default).
    public let namespace: String
    /// The event name (the first element of the packet's array).
    public let name: String
    /// The arguments after the name.
    public let arguments: SocketIOArguments
    /// Set when the server asked for an acknowledgement: answer with
    /// ``SocketIOClient/acknowledge(_:_:)``.
    public let ackID: Int?
    /// The connection-state-recovery offset the server appended (its last argument, a
    /// string), when the namespace's session has a `pid`; the client sends the last one it
    /// received when it reconnects, and the server replays what followed.
    public let offset: String?
}

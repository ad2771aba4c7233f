/// One ready Socket.IO connection: its namespaces' session ids and which sessions the server
/// recovered (connection state recovery: the missed events follow).
public struct SocketIOConnection: Sendable, Hashable {
    /// The attempt's number (1 for the first connection).
    public let attempt: Int
    /// The Engine.IO session id.
    public let engineSID: String
    /// The Socket.IO session id of each namespace.
    public let sids: [String: String]
    /// The namespaces whose session the server recovered (same `pid` as before): their rooms
    /// survived and the events broadcast while away are replayed.
    public let recovered: Set<String>
}

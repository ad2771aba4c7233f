/// Binary data sent as a Socket.IO attachment: as a top-level argument of an emit it goes out
/// as a binary WebSocket message, with a `{"_placeholder":true,"num":N}` in its place in the
/// packet (Socket.IO protocol v5, BINARY_EVENT). Inside another value it cannot be placed,
/// and encoding it throws.
public struct SocketIOBinary: Encodable, Sendable, Hashable {
    /// The attachment's bytes.
    public var bytes: [UInt8]

    /// An attachment with these bytes.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Always throws: only a top-level argument of an emit becomes an attachment.
    public func encode(to encoder: any Encoder) throws {
        throw SocketIOError(.invalidArgument, detail: "a SocketIOBinary is an attachment only as a top-level argument")
    }
}

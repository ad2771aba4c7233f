import Realtime

/// What went wrong in a Socket.IO exchange. A struct over a private code (new codes never
/// break a `switch`); ``description`` is the code and a short detail of the SDK's own,
/// never a payload, a token or the server's message.
public struct SocketIOError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable {
        case connectRefused = "connect_refused"
        case ackTimeout = "ack_timeout"
        case connectionLost = "connection_lost"
        case notConnected = "not_connected"
        case namespaceDisconnected = "namespace_disconnected"
        case invalidArgument = "invalid_argument"
        case payloadTooLarge = "payload_too_large"
        case decoding = "decoding_failed"
        case closed = "closed"
    }

    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let base: Base
        init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// The server refused a namespace (CONNECT_ERROR, Socket.IO protocol v5): final, the
        /// client stops; ``SocketIOError/data`` holds the server's payload.
        public static let connectRefused = Code(.connectRefused)
        /// No acknowledgement within the emit's timeout (counted from the call, outbox time
        /// included).
        public static let ackTimeout = Code(.ackTimeout)
        /// The connection the emit went out on ended before its acknowledgement came.
        public static let connectionLost = Code(.connectionLost)
        /// No open connection for an emit with binary attachments (it cannot wait in the
        /// outbox). Other emits throw the client's `not_connected` under fail-fast.
        public static let notConnected = Code(.notConnected)
        /// The server disconnected the namespace (DISCONNECT); the next connection joins it
        /// again.
        public static let namespaceDisconnected = Code(.namespaceDisconnected)
        /// An argument could not be encoded (a ``SocketIOBinary`` inside another value, a
        /// value `JSONEncoder` refuses, a namespace without its leading `/`).
        public static let invalidArgument = Code(.invalidArgument)
        /// The packet, or one of its binary attachments, is larger than the server's
        /// `maxPayload` (Engine.IO open packet), which bounds each WebSocket message.
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// An argument is not of the type asked for (``SocketIOArguments/decode(_:at:)``).
        public static let decoding = Code(.decoding)
        /// ``SocketIOClient/close()`` was called, or the client stopped.
        public static let closed = Code(.closed)
    }

    /// What failed: a stable code that programs match on.
    public let code: Code
    /// A short explanation of the SDK's own (never a payload).
    public var detail: String?
    /// The server's CONNECT_ERROR payload as JSON text (``Code/connectRefused``); not part of
    /// ``description``.
    public var data: String?
    /// The client's error underneath (``Code/connectionLost``, ``Code/notConnected``).
    public var underlying: RealtimeError?

    init(_ base: Base, detail: String? = nil, data: String? = nil, underlying: RealtimeError? = nil) {
        self.code = Code(base)
        self.detail = detail
        self.data = data
        self.underlying = underlying
    }

    public var description: String {
        detail.map { "\(code): \($0)" } ?? code.description
    }
}

import Realtime

extension SocketIOClient {
    /// Everything a ``SocketIOClient`` can be told, with documented defaults.
    public struct Configuration: Sendable {
        /// The connection underneath: TLS, headers, backoff and reconnect policies, the outbox
        /// (`client.sendPolicy = .queue()`), the retry budget, the WebSocket heartbeat.
        /// Its `onOpen` and `messageID` are the Socket.IO client's own (values set there are
        /// replaced). Default `RealtimeClient.Configuration()`.
        public var client = RealtimeClient.Configuration()
        /// The server's Socket.IO path; `EIO=4&transport=websocket` is added to the query
        /// (Engine.IO protocol v4, "Transports"). Default `/socket.io/`.
        public var path = "/socket.io/"
        /// The namespaces joined on every connection, each with a CONNECT packet. Default `["/"]`.
        public var namespaces: [String] = ["/"]
        /// The auth payload of a namespace's CONNECT (a JSON object), asked for on every
        /// connection (so a token can be fresh). Default nil (no payload).
        public var auth: (@Sendable (_ namespace: String) async throws -> (any Encodable & Sendable)?)?
        /// The application's re-join step, run on every connection once each namespace is
        /// joined and before the outbox drains: join rooms, re-send what the server forgot.
        /// Its emits go out first, and ``SocketIOHandshake/emitWithAck(_:_:namespace:)``
        /// waits for the server's answer. A throw fails the attempt (retried with backoff).
        /// Bounded by `client.onOpenTimeout` with the rest of the handshake. Default nil.
        public var onConnect: (@Sendable (SocketIOHandshake) async throws -> Void)?
        /// How long ``SocketIOClient/emitWithAck(_:_:namespace:timeout:)`` waits for the
        /// acknowledgement, from the call (time in the outbox included). Default 10 s.
        public var ackTimeout: Duration = .seconds(10)
        /// The most binary attachments one packet may announce; a server packet announcing
        /// more ends the connection with `message_too_large`. Default 16.
        public var maxAttachments = 16
        /// Events received and not yet taken from ``SocketIOClient/events``; when it is full,
        /// reading stops (nothing is dropped) until the application catches up, and a ping
        /// behind the unread events waits with them. Default 256.
        public var eventBufferCapacity = 256

        /// The documented defaults.
        public init() {}
    }
}

import Realtime

extension SocketIOClient {
    /// Emits `event` with `arguments` (each encoded with `JSONEncoder`; a ``SocketIOBinary``
    /// becomes an attachment). Returns once the connection accepted it; with the outbox
    /// (`configuration.client.sendPolicy = .queue()`) a call while disconnected waits and goes
    /// out, once and in order, right after the next handshake. An emit with attachments
    /// needs an open connection (the outbox could part it from its attachments).
    ///
    /// - Throws: ``SocketIOError`` `invalid_argument`, `payload_too_large` (over the server's
    ///   `maxPayload`), `not_connected`; or the client's ``RealtimeError`` (`not_connected`
    ///   under fail-fast, `send_queue_full`, `send_expired`).
    public func emit(_ event: String, _ arguments: any Encodable & Sendable..., namespace: String = "/") async throws {
        try await send(try SocketIOEncoder.messages(name: event, arguments: arguments, namespace: namespace, ackID: nil))
    }

    /// Emits `event` and returns the server's acknowledgement (its arguments).
    ///
    /// - Parameter timeout: from the call, time in the outbox included; default
    ///   ``Configuration/ackTimeout``.
    /// - Throws: ``SocketIOError`` `ack_timeout`, `connection_lost` (the connection it went
    ///   out on ended first), `namespace_disconnected`, `closed`; or what ``emit(_:_:namespace:)``
    ///   throws. The acknowledgement is delivered at most once.
    public func emitWithAck(
        _ event: String, _ arguments: any Encodable & Sendable..., namespace: String = "/", timeout: Duration? = nil
    ) async throws -> SocketIOArguments {
        let key = core.state.withLock { $0.acks.allocate(namespace: namespace) }
        let messages = try SocketIOEncoder.messages(name: event, arguments: arguments, namespace: namespace, ackID: key.id)
        return try await core.awaitAck(key, timeout: timeout ?? configuration.ackTimeout, withdrawable: messages.count == 1) {
            try await self.send(messages)
        }
    }

    /// Answers an event the server emitted with an ack id (``SocketIOMessage/ackID``).
    public func acknowledge(_ message: SocketIOMessage, _ arguments: any Encodable & Sendable...) async throws {
        guard let id = message.ackID else { return }
        try await send(try SocketIOEncoder.messages(name: nil, arguments: arguments, namespace: message.namespace, ackID: id))
    }

    /// The bytes of one message on the wire, before framing.
    private static func size(_ message: OutboundMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let bytes), .ping(let bytes): bytes.count
        }
    }

    /// Hands one packet and its attachments to the connection, nothing between them.
    func send(_ messages: [OutboundMessage]) async throws {
        if core.state.withLock({ $0.stopped }) { throw SocketIOError(.closed) }
        // The server takes at most `maxPayload` bytes per WebSocket message: the packet's,
        // and each attachment's.
        if let limit = core.state.withLock({ $0.open?.maxPayload }), let size = messages.map(Self.size).first(where: { $0 > limit }) {
            throw SocketIOError(.payloadTooLarge, detail: "\(size) bytes, the server takes \(limit)")
        }
        if messages.count > 1, !realtime.isConnected {
            throw SocketIOError(.notConnected, detail: "an emit with attachments needs an open connection")
        }
        try await core.gate.withGate {
            for message in messages { try await realtime.send(message) }
        }
    }
}

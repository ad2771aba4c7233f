import Realtime

/// Handed to ``SocketIOClient/Configuration/onConnect`` on every connection, once each
/// namespace is joined: what it sends goes out before the outbox, and its acknowledgements
/// are taken from the handshake's messages (the others stay for ``SocketIOClient/events``).
public struct SocketIOHandshake: Sendable {
    /// The connection: attempt, session ids, and the namespaces the server recovered (whose
    /// rooms survived: a re-join may be skipped for them).
    public let connection: SocketIOConnection
    let context: RealtimeClient.OpenContext
    let core: SocketIOCore

    /// Emits `event` on this connection, before the outbox.
    public func emit(_ event: String, _ arguments: any Encodable & Sendable..., namespace: String = "/") async throws {
        _ = try await core.handshakeEmit(context, name: event, arguments: arguments, namespace: namespace, ack: false)
    }

    /// Emits `event` and waits for the server's acknowledgement (within the handshake's time,
    /// `client.onOpenTimeout`): when it returns, the server has handled the event.
    @discardableResult
    public func emitWithAck(_ event: String, _ arguments: any Encodable & Sendable..., namespace: String = "/") async throws -> SocketIOArguments {
        guard let answer = try await core.handshakeEmit(context, name: event, arguments: arguments, namespace: namespace, ack: true) else {
            preconditionFailure("an emit with ack returned no answer")
        }
        return answer
    }
}

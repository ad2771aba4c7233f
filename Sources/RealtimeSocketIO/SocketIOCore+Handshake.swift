#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime
import Synchronization
import RealtimeCore

extension SocketIOCore {
    /// The client's on-open hook: the Engine.IO open packet, a CONNECT per namespace (auth,
    /// and `pid` and `offset` when the session has them), their answers, then the
    /// application's ``SocketIOClient/Configuration/onConnect``; the outbox goes out after it.
    func handshake(_ context: RealtimeClient.OpenContext) async throws {
        // The Engine.IO layer let nothing but the open packet come first.
        _ = try await context.receive()
        guard let open = state.withLock({ $0.open }) else {
            throw RealtimeError.protocolViolation("no Engine.IO open packet")
        }
        let namespaces = configuration.namespaces.isEmpty ? ["/"] : configuration.namespaces
        let previous = state.withLock { $0.sessions }
        for namespace in namespaces {
            let auth = try await configuration.auth?(namespace)
            let session = previous[namespace]
            let packet = try SocketIOEncoder.connect(namespace: namespace, auth: auth, pid: session?.pid, offset: session?.offset)
            try await context.send(.text(packet))
        }
        var sids: [String: String] = [:]
        var recovered: Set<String> = []
        for namespace in namespaces {
            let answer = try await connectAnswer(context, namespace: namespace)
            sids[namespace] = answer.sid
            if let pid = answer.pid, pid == previous[namespace]?.pid { recovered.insert(namespace) }
            state.withLock { s in
                let offset = answer.pid != nil && answer.pid == s.sessions[namespace]?.pid ? s.sessions[namespace]?.offset : nil
                s.sessions[namespace] = Session(sid: answer.sid, pid: answer.pid, offset: offset)
            }
        }
        let connection = SocketIOConnection(attempt: context.attempt, engineSID: open.sid, sids: sids, recovered: recovered)
        try await configuration.onConnect?(SocketIOHandshake(connection: connection, context: context, core: self))
        state.withLock { $0.connections[context.attempt] = connection }
    }

    private struct ConnectAnswer: Decodable {
        var sid: String
        var pid: String?
    }

    /// The server's CONNECT (or CONNECT_ERROR) for `namespace`; the other messages stay for
    /// the application.
    private func connectAnswer(_ context: RealtimeClient.OpenContext, namespace: String) async throws -> ConnectAnswer {
        let limit = configuration.maxAttachments
        let message = try await context.receive { message in
            guard let text = message.text, text.hasPrefix("40") || text.hasPrefix("44"),
                let packet = try? SocketIOPacket.decode(Array(text.utf8), from: 1, maxAttachments: limit)
            else { return false }
            return packet.namespace == namespace
        }
        let packet = try SocketIOPacket.decode(message.bytes, from: 1, maxAttachments: limit)
        if packet.kind == .connectError {
            let refusal = SocketIOError(
                .connectRefused, detail: "the server refused namespace \(namespace)", data: String(decoding: packet.payload, as: UTF8.self))
            state.withLock { $0.fatal = refusal }
            realtime.withLock { $0.client }?.close()
            throw refusal
        }
        guard let answer = try? JSONDecoder().decode(ConnectAnswer.self, from: Data(packet.payload)) else {
            throw RealtimeError.protocolViolation("Socket.IO CONNECT answer without a sid")
        }
        return answer
    }

    /// Sends one packet from the handshake and, with `ack`, takes its acknowledgement (and
    /// the attachments after it) from the messages of the handshake.
    func handshakeEmit(
        _ context: RealtimeClient.OpenContext, name: String, arguments: [any Encodable & Sendable], namespace: String, ack: Bool
    ) async throws -> SocketIOArguments? {
        let key = ack ? state.withLock { $0.acks.allocate(namespace: namespace) } : nil
        let messages = try SocketIOEncoder.messages(name: name, arguments: arguments, namespace: namespace, ackID: key?.id)
        for m in messages { try await context.send(m) }
        guard let key else { return nil }
        let limit = configuration.maxAttachments
        let answer = try await context.receive { message in
            guard let text = message.text, text.hasPrefix("43") || text.hasPrefix("46"),
                let packet = try? SocketIOPacket.decode(Array(text.utf8), from: 1, maxAttachments: limit)
            else { return false }
            return packet.namespace == key.namespace && packet.ackID == key.id
        }
        let packet = try SocketIOPacket.decode(answer.bytes, from: 1, maxAttachments: limit)
        var attachments: [[UInt8]] = []
        while attachments.count < packet.attachments {
            attachments.append(try await context.receive(where: Self.unclaimedBinary()).bytes)
        }
        return SocketIOArguments(payload: packet.payload, dropFirst: false, attachments: attachments)
    }

    /// Accepts the first binary message no BINARY packet still held before it owns: the
    /// predicate sees the held messages in order, counting what each packet is owed.
    private static func unclaimedBinary() -> @Sendable (Message) -> Bool {
        let owed = LockedValue(0)
        return { message in
            guard case .binary = message.content else {
                if let text = message.text, text.hasPrefix("45") || text.hasPrefix("46"),
                    let packet = try? SocketIOPacket.decode(Array(text.utf8), from: 1, maxAttachments: .max)
                {
                    owed.withLock { $0 = packet.attachments }
                }
                return false
            }
            return owed.withLock { n in
                guard n > 0 else { return true }
                n -= 1
                return false
            }
        }
    }
}

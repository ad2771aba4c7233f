import Realtime

extension SocketIOCore {
    /// A BINARY packet waiting for its attachments.
    struct Assembly {
        var packet: SocketIOPacket
        var attachments: [[UInt8]] = []
    }

    /// Reads the client's events until it stops: Socket.IO packets become ``SocketIOEvent``s
    /// in the inbox (waiting while it is full) or resolve acknowledgements; ends of connections
    /// fail the acknowledgements that went out on them.
    func read(_ client: RealtimeClient) async {
        var assembly: Assembly?
        var failure: SocketIOError?
        var opened = 0
        for await event in client.events {
            switch event {
            case .open(let info):
                assembly = nil
                failure = nil
                opened = info.attempt
                let connection = state.withLock { $0.connections.removeValue(forKey: info.attempt) }
                if let connection { await inbox.push(.connected(connection)) }
            case .event(let message):
                await received(message, assembly: &assembly)
            case .error(let e):
                // A connection that was open reports its end as `closed` next; an attempt that
                // never opened only here, where the last one is worth an event.
                failure = SocketIOError(.connectionLost, detail: "\(e.error.code)", underlying: e.error)
                // An open attempt's end comes as `closed`; an error on it ends nothing.
                if e.attempt != opened { failAcksSent(through: e.attempt, failure) }
                if !e.willRetry { await announceEnd(failure, willReconnect: false) }
            case .closed(let c):
                failAcksSent(through: opened, failure)
                await announceEnd(c.clean ? nil : failure ?? SocketIOError(.connectionLost), willReconnect: c.willReconnect)
                failure = nil
            }
        }
        let fatal = state.withLock { $0.fatal }
        if let fatal { await inbox.push(.disconnected(SocketIODisconnection(namespace: nil, error: fatal, willReconnect: false))) }
        stop(fatal ?? SocketIOError(.closed))
    }

    /// Attempt `attempt`'s connection ended: the acknowledgements of what went out on it
    /// cannot come.
    private func failAcksSent(through attempt: Int, _ error: SocketIOError?) {
        let waiters = state.withLock { $0.acks.connectionEnded(through: attempt) }
        let lost = SocketIOError(.connectionLost, detail: "the connection ended before the acknowledgement", underlying: error?.underlying)
        for w in waiters { w.resume(throwing: lost) }
    }

    /// A refusal (CONNECT_ERROR) is announced once, when the events end.
    private func announceEnd(_ error: SocketIOError?, willReconnect: Bool) async {
        guard state.withLock({ $0.fatal }) == nil else { return }
        await inbox.push(.disconnected(SocketIODisconnection(namespace: nil, error: error, willReconnect: willReconnect)))
    }

    private func received(_ message: Message, assembly: inout Assembly?) async {
        let limit = configuration.maxAttachments
        guard message.text != nil else {
            // The Engine.IO layer let through only the attachments a BINARY packet announced.
            guard var pending = assembly else { return }
            pending.attachments.append(message.bytes)
            assembly = pending
            if pending.attachments.count == pending.packet.attachments {
                assembly = nil
                await dispatch(pending.packet, attachments: pending.attachments)
            }
            return
        }
        guard let packet = try? SocketIOPacket.decode(message.bytes, from: 1, maxAttachments: limit) else { return }
        if packet.attachments > 0 {
            assembly = Assembly(packet: packet)
        } else {
            await dispatch(packet, attachments: [])
        }
    }

    private func dispatch(_ packet: SocketIOPacket, attachments: [[UInt8]]) async {
        switch packet.kind {
        case .event, .binaryEvent:
            let arguments = SocketIOArguments(payload: packet.payload, dropFirst: true, attachments: attachments)
            let name = (try? SocketIOArguments(payload: packet.payload, dropFirst: false, attachments: []).decode(String.self)) ?? ""
            let offset: String? = state.withLock { s in
                guard s.sessions[packet.namespace]?.pid != nil, let offset = arguments.trailingString else { return nil }
                s.sessions[packet.namespace]?.offset = offset
                return offset
            }
            let message = SocketIOMessage(namespace: packet.namespace, name: name, arguments: arguments, ackID: packet.ackID, offset: offset)
            await inbox.push(.event(message))
        case .ack, .binaryAck:
            let key = SocketIOAckTable<AckWaiter>.Key(namespace: packet.namespace, id: packet.ackID ?? -1)
            let waiter = state.withLock { s in
                let w = s.acks.take(key)
                if w == nil { s.unmatchedAcks += 1 }
                return w
            }
            waiter?.resume(returning: SocketIOArguments(payload: packet.payload, dropFirst: false, attachments: attachments))
        case .disconnect, .connectError:
            let waiters = state.withLock { $0.acks.takeSent(namespace: packet.namespace) }
            let error = SocketIOError(.namespaceDisconnected, detail: "the server disconnected namespace \(packet.namespace)")
            for w in waiters { w.resume(throwing: error) }
            // The client does not join it again on this connection (the server asked it to
            // leave); the next connection, when one comes, joins every namespace.
            await inbox.push(.disconnected(SocketIODisconnection(namespace: packet.namespace, error: error, willReconnect: false)))
        case .connect:
            break
        }
    }
}

import Realtime

extension GraphQLSession {
    /// Sends what the machine decided, in that order, each on the connection it was decided
    /// for: a message for a connection that ended is not sent (its operations are subscribed
    /// again on the next one). A subscribe's variables are computed here, from the
    /// operation's cursor, outside the lock.
    func write(_ items: AsyncStream<Outgoing>) async {
        for await item in items {
            guard let (transport, text, key) = prepare(item) else { continue }
            do {
                try await transport.send(.text(text))
            } catch let error as RealtimeError where error.code == .notConnected {
                continue
            } catch {
                // The subscribe was not written: the server never saw its id, so no `complete`.
                if let key {
                    endUnsent(key, with: GraphQLClientError(.connectionFailed, detail: "the subscribe was not sent", underlying: error as? RealtimeError))
                }
            }
        }
    }

    /// The transport and text of `item`, and its operation for a subscribe; nil when there
    /// is nothing to send.
    private func prepare(_ item: Outgoing) -> (GraphQLTransport, String, UInt64?)? {
        let found: (GraphQLTransport, (any GraphQLOperationSink)?, (any Sendable)??)? = state.withLock { s in
            guard let transport = s.transport, transport.attempt == item.attempt else { return nil }
            guard case .subscribe(let key, let id, _) = item else { return (transport, nil, nil) }
            guard let cursor = s.machine.cursor(of: key, id: id), let operation = s.operations[key] else { return nil }
            return (transport, operation, cursor)
        }
        guard let (transport, operation, cursor) = found else { return nil }
        switch item {
        case .complete(let id, _): return (transport, GraphQLOutbound.complete(id: id), nil)
        case .pong: return (transport, GraphQLOutbound.pong, nil)
        case .subscribe(let key, let id, _):
            guard let operation, let cursor else { return nil }
            do {
                return (transport, try operation.subscribeMessage(id: id, cursor: cursor), key)
            } catch {
                endUnsent(key, with: error as? GraphQLClientError ?? GraphQLClientError(.encodingFailed))
                return nil
            }
        }
    }
}

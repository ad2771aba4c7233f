extension GraphQLSessionMachine {
    /// What to do with a message of the server.
    enum InboundAction: Sendable, Hashable {
        /// Nothing: a message of a connection that ended, for an id this client completed or
        /// never used (graphql-transport-ws "Invalid message": unknown ids may be ignored),
        /// a `pong`, a repeated `connection_ack`.
        case ignore
        /// A `next` for operation `key`, under `id`: decode it, then ``accept(_:id:cursor:)``.
        case deliver(key: Key, id: String)
        /// Operation `key` ended: `complete` (nil) or `error` (``GraphQLClientError/Code/operationFailed``).
        case end(key: Key, error: GraphQLClientError?)
        case send(Outgoing)
        /// The server broke the protocol: close the connection with 4400 ("Invalid message").
        case violation(String)
    }

    /// A message of attempt `attempt`'s connection (the attempt of the last `open` the
    /// client delivered).
    mutating func received(_ message: GraphQLInbound, attempt: Int) -> InboundAction {
        guard phase == .running, connection == .ready(attempt: attempt) else { return .ignore }
        switch message {
        case .connectionAck, .pong:
            return .ignore
        case .ping:
            return .send(.pong(attempt: attempt))
        case .next(let id):
            guard let key = active[id] else { return unknown(id, "next") }
            return .deliver(key: key, id: id)
        case .error(let id, let errors):
            guard let key = serverEnded(id) else { return unknown(id, "error") }
            return .end(key: key, error: .operationFailed(errors))
        case .complete(let id):
            guard let key = serverEnded(id) else { return unknown(id, "complete") }
            return .end(key: key, error: nil)
        case .invalid(let detail):
            return .violation(detail)
        }
    }

    /// The result of `next` for operation `key` under `id` was decoded: true when it is
    /// still that operation's id (the result is then delivered, and `cursor`, its data,
    /// becomes the operation's cursor); false when the operation ended or was subscribed
    /// again since (the result is dropped: a re-subscription asks for it again).
    mutating func accept(_ key: Key, id: String, cursor: (any Sendable)?) -> Bool {
        guard phase == .running, active[id] == key else { return false }
        if let cursor { operations[key]?.cursor = cursor }
        return true
    }

    /// The cursor to subscribe operation `key` as `id` with: `.some(nil)` before any data;
    /// nil when the operation ended or has another id now (the message is not sent).
    func cursor(of key: Key, id: String) -> (any Sendable)?? {
        guard let operation = operations[key], operation.id == id else { return nil }
        return .some(operation.cursor)
    }

    private mutating func serverEnded(_ id: String) -> Key? {
        guard let key = active.removeValue(forKey: id) else { return nil }
        operations[key] = nil
        if ended.count >= Self.endedMemory { ended = [] }
        ended.insert(id)
        return key
    }

    private func unknown(_ id: String, _ type: String) -> InboundAction {
        ended.contains(id) ? .violation("a \(type) message for operation \(id), which the server had ended") : .ignore
    }
}

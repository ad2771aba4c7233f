/// The graphql-transport-ws session of one ``GraphQLClient``, sans I/O: which connection is
/// acknowledged, which operations are live and under which id, what goes out, and what an
/// ended connection means. Its driver (`GraphQLSession`) feeds it the handshake, the server's
/// messages, the transport's ends and the application's calls under one lock, and performs
/// the actions it returns.
///
/// **Ids.** Operation ids are decimal counters from 1, never reused for the client's life,
/// so they are unique per connection (graphql-transport-ws "Subscribe") and a message for an
/// id of an earlier connection matches nothing. A live operation has an id on the ready
/// connection, or none while it waits for the next acknowledged one, which subscribes it
/// again with a new id.
///
/// **Cursors.** The data of the newest result accepted for an operation is its cursor: its
/// next subscribe message computes the variables from it. A result is accepted only while
/// its id is still the operation's, so a result of a connection that already ended is
/// dropped, and the re-subscription (made after the end) asks the server for it again.
struct GraphQLSessionMachine: Sendable {
    typealias Key = UInt64

    enum Phase: Sendable, Hashable {
        /// No subscription was made yet: nothing connects.
        case idle
        case running
        /// ``close()`` or ``stopped(_:)``: nothing more is accepted.
        case ended
    }

    enum Connection: Sendable, Hashable {
        /// No connection, or one whose handshake has not begun.
        case none
        /// `connection_init` is out; waiting for `connection_ack`.
        case initializing(attempt: Int)
        /// Acknowledged: operations are subscribed on it.
        case ready(attempt: Int)
    }

    /// A message for the writer, in the order the machine decided them.
    enum Outgoing: Sendable, Hashable {
        /// Subscribe operation `key` as `id`; the variables are computed when it goes out.
        case subscribe(key: Key, id: String, attempt: Int)
        case complete(id: String, attempt: Int)
        case pong(attempt: Int)

        var attempt: Int {
            switch self {
            case .subscribe(_, _, let a), .complete(_, let a), .pong(let a): return a
            }
        }
    }

    struct Operation: Sendable {
        var id: String?
        var cursor: (any Sendable)?
    }

    // The state below is internal for the machine's extensions (+Inbound, +Ends); only the
    // machine's methods change it.
    var phase = Phase.idle
    var connection = Connection.none
    var operations: [Key: Operation] = [:]
    /// The ready connection's live ids.
    var active: [String: Key] = [:]
    /// Ids the server ended on the ready connection (`complete`, `error`): a later message
    /// for one of them breaks the protocol. Forgotten past ``endedMemory``.
    var ended: Set<String> = []
    private var nextID: UInt64 = 1
    private var nextKey: Key = 1
    /// The last connection was closed with 4401 before another was acknowledged.
    var unauthorizedBefore = false
    /// Why the client ended, when the server's close code ended it.
    var finalError: GraphQLClientError?

    /// How many ended ids are remembered on one connection.
    static let endedMemory = 1024

    // MARK: The application

    enum SubscribeAction: Sendable, Hashable {
        /// The first subscription: start the client (the operation waits for the handshake).
        case start
        /// It waits for the handshake in progress.
        case wait
        case send(Outgoing)
        case refuse(GraphQLClientError)
    }

    /// A new operation; its key and what to do.
    mutating func subscribe() -> (Key, SubscribeAction) {
        let key = nextKey
        nextKey += 1
        switch phase {
        case .ended:
            return (key, .refuse(finalError ?? GraphQLClientError(.closed, detail: "the client was closed")))
        case .idle:
            phase = .running
            operations[key] = Operation()
            return (key, .start)
        case .running:
            operations[key] = Operation()
            guard case .ready(let attempt) = connection else { return (key, .wait) }
            return (key, .send(assign(key, attempt: attempt)))
        }
    }

    /// The application stops operation `key` (or the client ends it: its data did not
    /// decode, its variables did not encode): a `complete` when the server knows it.
    mutating func cancel(_ key: Key) -> Outgoing? {
        guard let operation = operations.removeValue(forKey: key), let id = operation.id,
            case .ready(let attempt) = connection
        else { return nil }
        active[id] = nil
        return .complete(id: id, attempt: attempt)
    }

    /// Operation `key`'s subscribe did not go out (its variables did not encode): it ends
    /// without a `complete`, since the server never saw its id.
    mutating func unsent(_ key: Key) {
        guard let operation = operations.removeValue(forKey: key), let id = operation.id else { return }
        active[id] = nil
    }

    /// ``GraphQLClient/close()``: every live operation, to end.
    mutating func close() -> [Key] {
        end(nil)
    }

    /// The client stopped for good (its events ended): every live operation, to end with
    /// ``finalError`` or `error`.
    mutating func stopped(_ error: GraphQLClientError?) -> [Key] {
        end(finalError ?? error)
    }

    /// The client cannot go on (its connection_init payload does not encode, the server
    /// does not speak graphql-transport-ws): nothing more is accepted, and when the client's
    /// events end every operation ends with `error`.
    mutating func reject(_ error: GraphQLClientError) {
        guard phase != .ended else { return }
        phase = .ended
        finalError = error
    }

    private mutating func end(_ error: GraphQLClientError?) -> [Key] {
        if phase != .ended {
            phase = .ended
            finalError = error
        }
        defer {
            operations = [:]
            active = [:]
        }
        return operations.keys.sorted()
    }

    // MARK: The handshake

    /// Attempt `attempt`'s hook begins; false when the client is over.
    mutating func handshakeStarted(attempt: Int) -> Bool {
        guard phase == .running else { return false }
        resetConnection()
        connection = .initializing(attempt: attempt)
        return true
    }

    /// `connection_ack` for attempt `attempt`: every live operation is subscribed again, in
    /// the order they were made. nil when that handshake is no longer current.
    mutating func acknowledged(attempt: Int) -> [Outgoing]? {
        guard phase == .running, connection == .initializing(attempt: attempt) else { return nil }
        connection = .ready(attempt: attempt)
        unauthorizedBefore = false
        return operations.keys.sorted().map { assign($0, attempt: attempt) }
    }

    private mutating func assign(_ key: Key, attempt: Int) -> Outgoing {
        let id = String(nextID)
        nextID += 1
        operations[key]?.id = id
        active[id] = key
        return .subscribe(key: key, id: id, attempt: attempt)
    }

    mutating func resetConnection() {
        connection = .none
        active = [:]
        ended = []
        for key in operations.keys { operations[key]?.id = nil }
    }
}

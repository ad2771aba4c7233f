import Realtime
import Synchronization
import RealtimeCore

/// The driver of a ``GraphQLSessionMachine`` for one ``GraphQLClient``: it feeds the machine
/// the handshake (the client's on-open hook), the server's messages (the router, the one
/// consumer of the client's events), the transports' ends (``GraphQLTransport``) and the
/// application's calls, under one lock, and performs what it returns: sends go to a writer
/// task in the order they were decided, results to each operation's buffer.
final class GraphQLSession: Sendable {
    typealias Outgoing = GraphQLSessionMachine.Outgoing

    struct State {
        var machine = GraphQLSessionMachine()
        var operations: [UInt64: any GraphQLOperationSink] = [:]
        /// The transport of the latest attempt, while it lives.
        var transport: GraphQLTransport?
        var realtime: RealtimeClient?
        var tasks: [Task<Void, Never>] = []
    }

    let state = LockedValue(State())
    let configuration: GraphQLClient.Configuration
    let outgoing: AsyncStream<Outgoing>.Continuation
    private let outgoingStream: AsyncStream<Outgoing>

    init(configuration: GraphQLClient.Configuration) {
        self.configuration = configuration
        (outgoingStream, outgoing) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The client this session drives (set once, right after both exist).
    func attach(_ realtime: RealtimeClient) {
        state.withLock { $0.realtime = realtime }
    }

    /// Registers a new operation; the first one starts the client.
    func subscribe<Value>(
        query: String, operationName: String?, variables: @escaping GraphQLOperation<Value>.Variables
    ) -> GraphQLOperation<Value> {
        let (operation, action) = state.withLock { s in
            let (key, action) = s.machine.subscribe()
            let operation = GraphQLOperation<Value>(
                key: key, query: query, operationName: operationName, variables: variables, session: self)
            switch action {
            case .refuse: break
            case .send(let item):
                s.operations[key] = operation
                outgoing.yield(item)
            case .start, .wait:
                s.operations[key] = operation
            }
            return (operation, action)
        }
        switch action {
        case .refuse(let error): operation.finish(error)
        case .start: start()
        case .send, .wait: break
        }
        return operation
    }

    /// The application stopped listening to operation `key`.
    func cancel(_ key: UInt64) {
        state.withLock { s in
            s.operations[key] = nil
            if let item = s.machine.cancel(key) { outgoing.yield(item) }
        }
    }

    /// The client ends operation `key` with `error` (its data did not decode, its variables
    /// did not encode, its subscribe could not be sent); the server is told when it knows it.
    func end(_ key: UInt64, with error: GraphQLClientError) {
        let operation = state.withLock { s in
            if let item = s.machine.cancel(key) { outgoing.yield(item) }
            return s.operations.removeValue(forKey: key)
        }
        operation?.finish(error)
    }

    /// Operation `key`'s subscribe was not sent (its variables did not encode, or the send
    /// failed): it ends with `error`, and the server, which never saw it, is told nothing.
    func endUnsent(_ key: UInt64, with error: GraphQLClientError) {
        let operation = state.withLock { s in
            s.machine.unsent(key)
            return s.operations.removeValue(forKey: key)
        }
        operation?.finish(error)
    }

    /// Whether a decoded result of operation `key` under `id` is delivered (see
    /// ``GraphQLSessionMachine/accept(_:id:cursor:)``).
    func accept(_ key: UInt64, id: String, cursor: (any Sendable)?) -> Bool {
        state.withLock { $0.machine.accept(key, id: id, cursor: cursor) }
    }

    /// Ends every operation (after what each has buffered) and the client.
    func close() {
        let (operations, realtime, tasks) = state.withLock { s in
            let operations = s.machine.close().compactMap { s.operations.removeValue(forKey: $0) }
            return (operations, s.realtime, s.tasks)
        }
        for operation in operations { operation.finish(nil) }
        realtime?.close()
        outgoing.finish()
        for task in tasks { task.cancel() }
    }

    /// Ends the client with `error` (a problem no reconnect can fix): every operation
    /// ends with it once the client's events end.
    func stop(_ error: GraphQLClientError) {
        let realtime = state.withLock { s in
            s.machine.reject(error)
            return s.realtime
        }
        realtime?.close()
    }

    /// The client's events ended: every live operation ends, with the server's final close
    /// code, `failure` (the client's last error), or as a connection that will not come back.
    func stopped(_ failure: RealtimeError?) {
        let error = failure.map { GraphQLClientError(.connectionFailed, detail: "the client stopped", underlying: $0) }
            ?? GraphQLClientError(.connectionFailed, detail: "the connection ended and the client does not reconnect")
        let operations = state.withLock { s in
            s.machine.stopped(error).compactMap { s.operations.removeValue(forKey: $0) }
        }
        let final = state.withLock { $0.machine.finalError } ?? error
        for operation in operations { operation.finish(final) }
        outgoing.finish()
    }

    /// Starts the router (the consumer of the client's events) and the writer.
    private func start() {
        guard let realtime = state.withLock({ $0.realtime }) else { return }
        let router = Task { await self.route(realtime) }
        let writer = Task { await self.write(outgoingStream) }
        state.withLock { $0.tasks = [router, writer] }
    }
}

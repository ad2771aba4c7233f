extension GraphQLSessionMachine {
    /// What an ended connection means for the client.
    enum EndVerdict: Sendable, Hashable {
        /// The client's reconnect policy decides, as for any end; live operations are
        /// subscribed again on the next acknowledged connection.
        case reconnect
        /// The server's close code ends the client: connecting again would get the same answer.
        case final(GraphQLClientError)
    }

    /// Attempt `attempt`'s connection ended; `code` is the server's close code (nil when the
    /// client closed it itself or none came). Every live operation waits for the next
    /// acknowledged connection.
    ///
    /// The close codes of graphql-transport-ws ("Message types", "Invalid message"):
    /// - 4400 (invalid message; strawberry also sends it for a query that does not parse),
    ///   4403 (`connection_init` refused), 4406 (subprotocol not acceptable) and 4409
    ///   (subscriber already exists: ids are never reused here, so the server disagrees
    ///   about the protocol) are final.
    /// - 4401 (a subscribe before `connection_ack`, which this client never sends; servers
    ///   also use it for a refused `connection_init`) is retried once, with a fresh payload;
    ///   a second 4401 before any acknowledged connection is final.
    /// - 4408 (`connection_init` too late), 4429 (too many `connection_init`: this client
    ///   sends one per connection, so the server is confused or a proxy repeated it), 4499
    ///   (terminated), 4500 and every other code are retried with the client's backoff.
    mutating func transportEnded(attempt: Int, code: UInt16?, reason: String?) -> EndVerdict {
        if connection == .initializing(attempt: attempt) || connection == .ready(attempt: attempt) {
            resetConnection()
        }
        guard phase == .running, let code else { return .reconnect }
        let detail: String
        switch code {
        case 4400: detail = "the server closed the connection as invalid (4400)"
        case 4403: detail = "the server refused the connection_init (4403 forbidden)"
        case 4406: detail = "the server does not accept the graphql-transport-ws subprotocol (4406)"
        case 4409: detail = "the server reports an operation id as in use (4409)"
        case 4401 where unauthorizedBefore: detail = "the server refused two connections in a row (4401 unauthorized)"
        case 4401:
            unauthorizedBefore = true
            return .reconnect
        default:
            return .reconnect
        }
        let error = GraphQLClientError.connectionRejected(closeCode: code, reason: reason, detail: detail)
        finalError = error
        phase = .ended
        return .final(error)
    }
}

import Realtime

extension GraphQLSession {
    /// The client's on-open hook: `connection_init` with the application's payload, then
    /// `connection_ack` within the client's `onOpenTimeout` (the configuration's
    /// ``GraphQLClient/Configuration/ackTimeout``), answering `ping` meanwhile; then every live
    /// operation is subscribed again, before anything the application asks for later.
    ///
    /// A server that picked another subprotocol ends the client (connecting again would not
    /// change it). Another message before the ack breaks the protocol: the connection is
    /// closed with 4400 and the attempt fails, to be retried with backoff, as is a
    /// payload provider that throws.
    func handshake(_ context: RealtimeClient.OpenContext) async throws {
        let attempt = context.attempt
        guard state.withLock({ $0.machine.handshakeStarted(attempt: attempt) }) else { throw RealtimeError.cancelled }
        guard context.info.subprotocol == GraphQLClient.subprotocol else {
            stop(.connectionRejected(
                closeCode: 4406, reason: nil,
                detail: "the server did not accept the graphql-transport-ws subprotocol"))
            throw RealtimeError.cancelled
        }
        let payload = try await configuration.connectionPayload?()
        let message: String
        do {
            message = try GraphQLOutbound.connectionInit(payload: payload)
        } catch let error as GraphQLClientError {
            stop(error)
            throw RealtimeError.cancelled
        }
        try await context.send(.text(message))
        try await awaitAcknowledgement(context)
        state.withLock { s in
            for item in s.machine.acknowledged(attempt: attempt) ?? [] { outgoing.yield(item) }
        }
    }

    private func awaitAcknowledgement(_ context: RealtimeClient.OpenContext) async throws {
        while true {
            let inbound = GraphQLInbound(try await context.receive())
            let detail: String
            switch inbound {
            case .connectionAck: return
            case .pong: continue
            case .ping:
                // The client's heartbeat answers pings it recognises; this one it did not.
                try await context.send(.text(GraphQLOutbound.pong))
                continue
            case .invalid(let d): detail = d
            case .next, .error, .complete: detail = "an operation message before connection_ack"
            }
            failConnection(attempt: context.attempt, detail)
            throw RealtimeError.protocolViolation("graphql-transport-ws: \(detail)", closeCode: 4400)
        }
    }
}

@_spi(Transport) import Realtime

extension GraphQLSession {
    /// Wraps `base`: every attempt's transport becomes a ``GraphQLTransport`` of this session.
    func transportFactory(_ base: @escaping RealtimeClient.TransportFactory) -> RealtimeClient.TransportFactory {
        { [weak self] request in
            let inner = try base(request)
            guard let self else { return inner }
            let transport = GraphQLTransport(inner: inner, attempt: request.attempt, session: self)
            state.withLock { $0.transport = transport }
            return transport
        }
    }

    /// `transport`'s attempt ended with `end`: the machine judges it, and the end the client
    /// sees says so. A close this session asked for (`violation`) ends the attempt with
    /// `protocol_violation` and close code 4400, which the client retries with backoff; a
    /// final close code ends it as a server that asked not to be reconnected to.
    func transportEnded(_ transport: GraphQLTransport, _ end: TransportEnd, violation: String?) -> TransportEnd {
        let verdict = state.withLock { s in
            if s.transport === transport { s.transport = nil }
            return s.machine.transportEnded(attempt: transport.attempt, code: violation == nil ? end.code : nil, reason: end.reason)
        }
        if let violation {
            return TransportEnd(
                clean: false, code: 4400, reason: end.reason,
                error: .protocolViolation("graphql-transport-ws: \(violation)", closeCode: 4400))
        }
        switch verdict {
        case .reconnect:
            return end
        case .final:
            var final = end
            final.doNotReconnect = true
            return final
        }
    }

    /// The server broke the protocol on attempt `attempt`'s connection: close it with 4400.
    func failConnection(attempt: Int, _ detail: String) {
        let transport = state.withLock { s in s.transport?.attempt == attempt ? s.transport : nil }
        transport?.failProtocol(detail)
    }
}

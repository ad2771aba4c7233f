import Realtime

extension GraphQLClient {
    /// What a ``GraphQLClient`` can be told, with documented defaults.
    public struct Configuration: Sendable {
        /// The `connection_init` payload (graphql-transport-ws "ConnectionInit": a JSON
        /// object, typically the credentials: `["token": token]`), asked for on every
        /// connection, so a reconnect carries a fresh token. nil, or a provider returning nil,
        /// sends no payload. A provider that throws fails that attempt, which is retried with
        /// backoff; a payload that does not encode as a JSON object ends the client with
        /// ``GraphQLClientError/Code/encodingFailed``. Default nil.
        public var connectionPayload: (@Sendable () async throws -> (any Encodable & Sendable)?)?
        /// How long the handshake may take, from the upgrade to `connection_ack` (the payload
        /// provider included); then the attempt fails with `open_hook_failed` and is retried
        /// with backoff. Default 10 s.
        public var ackTimeout: Duration = .seconds(10)
        /// The client's `ping` after this much silence from the server, the connection dead
        /// (`heartbeat_timeout`, then a reconnect) after ``keepAliveMissedLimit`` unanswered.
        /// nil sends none; the server's pings are answered either way. Default 30 s.
        public var keepAlive: Duration? = .seconds(30)
        /// Unanswered pings before the connection is declared dead. Default 2.
        public var keepAliveMissedLimit = 2
        /// Results a subscription holds for the application. When one is full the client
        /// stops reading from the socket until the application takes some (the connection's
        /// other subscriptions and the server's `ping` wait too; nothing is dropped). Default 64.
        public var subscriptionBufferCapacity = 64
        /// The connection underneath: backoff, reconnect policy, retry budget, TLS, headers,
        /// timeouts, logging. The client sets these of it itself: `subprotocols`
        /// (`graphql-transport-ws`), `onOpen` and `onOpenTimeout` (the handshake and
        /// ``ackTimeout``), `heartbeat` (``keepAlive``), `sendPolicy` (`failFast`: operations
        /// are subscribed by the handshake, not queued) and `messageID` (none). Default
        /// `RealtimeClient.Configuration()`.
        public var realtime = RealtimeClient.Configuration()

        /// The documented defaults.
        public init() {}

        /// ``realtime`` with what graphql-transport-ws needs, the handshake run by `session`.
        func realtimeConfiguration(_ session: GraphQLSession) -> RealtimeClient.Configuration {
            var c = realtime
            c.subprotocols = [GraphQLClient.subprotocol]
            c.onOpen = { [weak session] context in
                guard let session else { throw RealtimeError.cancelled }
                try await session.handshake(context)
            }
            c.onOpenTimeout = ackTimeout
            c.heartbeat = GraphQLHeartbeat.policy(interval: keepAlive, missedLimit: keepAliveMissedLimit)
            c.sendPolicy = .failFast
            c.messageID = nil
            return c
        }

        /// Throws `invalid_configuration` for values that cannot work.
        func validate() throws {
            guard subscriptionBufferCapacity >= 1 else {
                throw RealtimeError(.invalidConfiguration, detail: "subscriptionBufferCapacity must be at least 1")
            }
            guard keepAliveMissedLimit >= 1, keepAlive.map({ $0 > .zero }) ?? true, ackTimeout > .zero else {
                throw RealtimeError(.invalidConfiguration, detail: "keepAlive, keepAliveMissedLimit and ackTimeout must be positive")
            }
        }
    }
}

extension TestServer {
    /// Counters for assertions in soak and leak tests.
    public struct Statistics: Sendable, Hashable {
        /// Connections accepted since `init`.
        public var connectionsAccepted = 0
        /// Connections open right now.
        public var activeConnections = 0
        /// Connections cut on purpose (`cut`, `cuts`, a handler's ``ResponseWriter/cutAfterBodyBytes``).
        public var cuts = 0
        /// TLS handshakes that failed (wrong CA on the client, missing client certificate, …).
        public var failedHandshakes = 0
    }
}

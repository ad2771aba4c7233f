extension RealtimeClient {
    /// Passed to ``Configuration/headersProvider`` before every connection attempt.
    public struct HeadersContext: Sendable, Hashable {
        /// The attempt about to be made, 1 for the first.
        public var attempt: Int
        /// True when the previous attempt was refused with HTTP 401: refresh the credentials
        /// (e.g. fetch a new bearer token) instead of returning cached ones. The client asks
        /// once until a connection opens; a second 401 before then stops with `unauthorized`.
        public var credentialsRejected: Bool

        /// A context for `attempt`; `credentialsRejected` after a 401.
        public init(attempt: Int, credentialsRejected: Bool) {
            self.attempt = attempt
            self.credentialsRejected = credentialsRejected
        }
    }
}

extension TestServer {
    /// Counters for assertions in soak and leak tests.
    package struct Statistics: Sendable, Hashable {
        /// Connections accepted since `init`.
        package var connectionsAccepted = 0
        /// Connections open right now.
        package var activeConnections = 0
        /// Connections cut on purpose (`cut`, `cuts`, a handler's ``ResponseWriter/cutAfterBodyBytes``).
        package var cuts = 0
        /// TLS handshakes that failed (wrong CA on the client, missing client certificate, …).
        package var failedHandshakes = 0
        /// Bytes the kernel took from every connection so far (heads, bodies, frames; counted
        /// before TLS, once a whole write is taken). It stops growing while clients stop
        /// reading: back-pressure tests watch it.
        package var bytesWritten = 0
        /// Failed `accept` calls (the listener kept accepting), and the last one's errno.
        package var acceptFailures = 0
        package var lastAcceptError: Int32?
    }
}

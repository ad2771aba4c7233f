extension ClientStateMachine {
    /// A message of `bytes` payload bytes was accepted by the live connection.
    package mutating func sent(bytes: Int) {
        statistics.messagesSent += 1
        statistics.bytesSent += bytes
    }

    /// Whether a connection is open now (its `open` was emitted and its `closed` not yet).
    package var isConnected: Bool {
        guard case .attempting(let a) = phase else { return false }
        return a.opened
    }

    /// The statistics with what is true now filled in (the open connections).
    package var currentStatistics: ClientStatistics {
        var s = statistics
        s.openConnections = isConnected ? 1 : 0
        return s
    }
}

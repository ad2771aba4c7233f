extension RealtimeClient.State: CustomStringConvertible {
    /// For people and logs: `idle`, `connecting (attempt 2)`, `open: sse http://host/stream
    /// (200, attempt 1)`, `waiting to retry in 2.5 s` (the time left, to the tenth of a
    /// second; `waiting to retry` once it is due, while the consumer catches up),
    /// `waiting for the network`, `suspended`, `closed` or `closed: <error>`. No clock
    /// instant, no `Optional(…)`, no secret.
    public var description: String {
        switch self {
        case .idle: return "idle"
        case .connecting(let attempt): return "connecting (attempt \(attempt))"
        case .open(let info): return "open: \(info)"
        case .waitingToRetry(let left):
            // Tenths of a second: a state read a few microseconds after it was made still
            // reads as the delay that was chosen.
            let tenths = (Double(left.components.seconds) * 10 + Double(left.components.attoseconds) / 1e17).rounded()
            guard tenths > 0 else { return "waiting to retry" }
            return "waiting to retry in \(Duration.milliseconds(Int64(tenths) * 100).millisecondsDescription)"
        case .waitingForNetwork: return "waiting for the network"
        case .suspended: return "suspended"
        case .closed(nil): return "closed"
        case .closed(let error?): return "closed: \(error)"
        }
    }
}

extension RealtimeClient {
    /// Whether a connection is open and ready now (past its on-open hook): ``state`` is
    /// ``State/open(_:)``, between an `open` event and its `closed`.
    public var isConnected: Bool { storage.state.withLock { $0.machine.isConnected } }
}

import Realtime

/// Tracks whether the client has a live connection, for the `--send` task: senders wait here
/// until the next `open` (a message sent between connections would fail with `notConnected`),
/// and the live transport is kept so that the end of input can close it with 1000.
final class ConnectionGate: Sendable {
    private struct State {
        /// The transport of the current attempt (set by the transport factory).
        var transport: (any Transport)?
        var open = false
        /// Counts `open` events, so a stale failure report cannot hide a newer connection.
        var generation = 0
        /// Set once: no connection will open any more.
        var finished = false
        var waiters: [CheckedContinuation<Bool, Never>] = []
        /// We closed the connection ourselves (end of the messages to send).
        var closedByUs = false
    }

    private let state = LockedValue(State())

    /// The factory made `transport` for a new attempt.
    func attempting(_ transport: any Transport) {
        state.withLock { $0.transport = transport }
    }

    /// An `open` event arrived: wake every waiting sender.
    func opened() {
        let waiters: [CheckedContinuation<Bool, Never>] = state.withLock { s in
            s.open = true
            s.generation += 1
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(returning: true) }
    }

    /// The connection ended (`closed` or `error`).
    func ended() {
        state.withLock { $0.open = false }
    }

    /// A send failed with `notConnected` on the connection of `generation`: wait for the next.
    func sendFailed(generation: Int) {
        state.withLock { s in
            if s.generation == generation { s.open = false }
        }
    }

    /// The client's events are over: senders stop waiting.
    func finish() {
        let waiters: [CheckedContinuation<Bool, Never>] = state.withLock { s in
            s.open = false
            s.finished = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(returning: false) }
    }

    /// Waits until a connection is open and returns its generation; nil when none will open
    /// any more.
    func waitUntilOpen() async -> Int? {
        while true {
            let now: Int?? = state.withLock { s in
                if s.finished { return .some(nil) }
                if s.open { return .some(s.generation) }
                return nil
            }
            if let now { return now }
            let woken = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let resumeNow: Bool? = state.withLock { s in
                    if s.finished { return false }
                    if s.open { return true }
                    s.waiters.append(c)
                    return nil
                }
                if let resumeNow { c.resume(returning: resumeNow) }
            }
            if !woken { return nil }
        }
    }

    /// Marks the close that follows as our own (its `cancelled` error is not a failure).
    func closingByUs() {
        state.withLock { $0.closedByUs = true }
    }

    var closedByUs: Bool { state.withLock { $0.closedByUs } }

    /// The live transport, if a connection is open.
    var liveTransport: (any Transport)? {
        state.withLock { $0.open ? $0.transport : nil }
    }
}

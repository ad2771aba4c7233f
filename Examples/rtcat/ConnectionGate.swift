import Realtime
@_spi(Transport) import RealtimeCore

/// What the `--send` side of a session needs of the connection: the transport of the current
/// attempt (set by the transport factory), so that the end of input can start the closing
/// handshake on it (RFC 6455 §7) instead of closing the whole client, and whether that close
/// was ours (its `cancelled` error is then no failure).
final class ConnectionGate: Sendable {
    private struct State {
        var transport: (any Transport)?
        var closedByUs = false
    }

    private let state = LockedValue(State())

    /// The factory made `transport` for a new attempt.
    func attempting(_ transport: any Transport) {
        state.withLock { $0.transport = transport }
    }

    /// Marks the close that follows as our own.
    func closingByUs() {
        state.withLock { $0.closedByUs = true }
    }

    var closedByUs: Bool { state.withLock { $0.closedByUs } }

    /// The transport of the newest attempt.
    var transport: (any Transport)? { state.withLock { $0.transport } }
}

extension ClientStateMachine {
    /// What the client is doing, as users see it (`RealtimeClient.State`), with times on the
    /// client's clock.
    package enum Snapshot: Sendable, Hashable {
        case idle
        case connecting(attempt: Int)
        case open(ConnectionInfo)
        case waitingToRetry(until: Duration)
        case waitingForNetwork
        case suspended
        case closed(RealtimeError?)
    }

    package var snapshot: Snapshot {
        switch phase {
        case .closed: return .closed(.cancelled)
        case .finished(let reason): return .closed(reason)
        default: break
        }
        if suspended { return .suspended }
        switch phase {
        case .idle, .loadingCursor:
            return .idle
        case .attempting(let a):
            // The handshake of the on-open hook is part of connecting.
            if case .open(let info, _) = a.stage { return .open(info) }
            return .connecting(attempt: a.number)
        case .bookingRetrySlot(let verdict):
            return .waitingToRetry(until: verdict.decidedAt + (verdict.delay ?? .zero))
        case .waiting(let w):
            if configuration.monitorsNetwork && network.down { return .waitingForNetwork }
            return .waitingToRetry(until: w.deadline ?? w.retryAt)
        case .finished, .closed:
            preconditionFailure("handled above")
        }
    }
}

extension ClientStorage.State {
    /// Records the machine's outbox actions under the lock (see ``absorb(_:into:)``).
    mutating func absorbSendAction(_ action: ClientStateMachine.Action, into effects: inout [ClientEffect]) {
        switch action {
        case .drainSends:
            effects.append(.drainSends)
        case .armSendExpiry(let deadline):
            if let task = disarmSendExpiry() { effects.append(.cancel(task)) }
            effects.append(.armSendExpiry(deadline: deadline, generation: sends.expiryGeneration))
        case .disarmSendExpiry:
            if let task = disarmSendExpiry() { effects.append(.cancel(task)) }
        case .resolveSends(let resolutions):
            let ready = sends.take(resolutions)
            if !ready.isEmpty { effects.append(.resumeSenders(ready)) }
        default:
            preconditionFailure("not an outbox action: \(action)")
        }
    }

    /// Makes any armed expiry task stale and returns it for cancelling.
    private mutating func disarmSendExpiry() -> Task<Void, Never>? {
        sends.expiryGeneration &+= 1
        defer { sends.expiry = nil }
        return sends.expiry
    }
}

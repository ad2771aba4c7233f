/// What the client does after a connection attempt ended (see ``ReconnectPolicy``).
package enum ReconnectDecision: Sendable, Hashable {
    /// Connect again after `delay` (zero for "at once").
    case retry(after: Duration)
    /// The circuit breaker opened: wait the cool-down, then connect again. `error` (code
    /// `circuitOpen`) says why, for the user.
    case coolDown(after: Duration, error: RealtimeError)
    /// The network is unreachable: wait until it returns, then connect at once. Waiting does
    /// not spend an attempt. A client without a network monitor backs off instead.
    case waitForNetwork
    /// The server answered 401 and a credential provider exists: refresh once, then retry at
    /// once without counting against the backoff.
    case refreshCredentials
    /// Do not connect again. `reason` is nil for an orderly stop (SSE 204, the clean end of a
    /// finite stream); otherwise it says why (the fatal error, `retriesExhausted`,
    /// `requestNotRepeatable`, `cancelled`).
    case stop(reason: RealtimeError?)

    /// Whether another attempt will follow (possibly after waiting for the network).
    package var willRetry: Bool {
        if case .stop = self { return false }
        return true
    }
}

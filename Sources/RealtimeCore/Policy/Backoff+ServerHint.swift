extension Backoff {
    /// The largest share of the envelope added as jitter to a delay that follows a server's
    /// reconnection time: 25 %.
    package static let serverHintJitter = 0.25

    /// The delay of retry `retry` after the server set its reconnection time `hint` (SSE
    /// `retry:`): the envelope grown from the hint, plus up to 25 % of it, so the first retry
    /// comes at the time the server asked for (give or take a quarter, which keeps a fleet
    /// of clients from reconnecting in the same millisecond) rather than anywhere up to three
    /// times later. Never above `max(maximum, min(1.25 × hint, serverDelayLimit))`: the jitter
    /// pushes neither a grown delay past the policy's cap nor a hint past what the policy
    /// lets a server ask for (a hint capped at `maximum` stays at `maximum`); without jitter
    /// (``Jitter/none``) exactly the envelope.
    func hintedDelay<G: RandomNumberGenerator>(_ hint: Duration, using rng: inout G) -> Duration {
        let envelope = policy.envelope(retry: retry, reconnectionTime: hint)
        guard policy.jitter != .none else { return envelope }
        let share = Double.random(in: 0...Self.serverHintJitter, using: &rng)
        let cap = Swift.max(policy.maximum, Swift.min(hint * (1 + Self.serverHintJitter), policy.serverDelayLimit))
        return Swift.min(cap, .clampedSeconds(envelope.secondsDouble * (1 + share)))
    }
}

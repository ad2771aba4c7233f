/// How a backoff delay is randomised, so that many clients cut by the same outage do not
/// reconnect in lock-step (a "thundering herd").
///
/// With `base(n) = min(maximum, initial × multiplier^(n-1))` for the n-th consecutive retry
/// (formulas from "Exponential Backoff and Jitter", AWS Architecture Blog, 2015):
///
/// | jitter | delay of retry n |
/// |---|---|
/// | ``none`` | `base(n)` |
/// | ``full`` | uniform in `[0, base(n)]` |
/// | ``equal`` | `base(n)/2 + uniform in [0, base(n)/2]` |
/// | ``decorrelated`` | `min(maximum, uniform in [low(n), max(low(n), 3 × previous)])`, `low(n) = max(initial, base(n)/2)`, `previous₀ = initial` |
public enum Jitter: Sendable, Hashable, CustomStringConvertible {
    /// No randomness: the exact exponential envelope. Predictable, but clients synchronise.
    case none
    /// Anywhere between zero and the envelope: the best spread, sometimes a very short wait.
    case full
    /// Half the envelope plus up to another half: never less than half the envelope.
    case equal
    /// Each delay drawn between half the envelope (at least `initial`) and three times the
    /// previous delay, capped: spreads like ``full`` without very short waits, and a streak of
    /// failures keeps growing (never below ``equal``'s floor). The default (storm control).
    /// The spread above the floor uses the AWS growth constant 3.
    case decorrelated

    public var description: String {
        switch self {
        case .none: return "none"
        case .full: return "full"
        case .equal: return "equal"
        case .decorrelated: return "decorrelated"
        }
    }
}

/// Storm control for a server that keeps failing: after ``failureThreshold`` consecutive
/// reconnects, wait one long ``coolDown`` instead of the next backoff delay, and say so
/// (error `circuitOpen`). The count is the backoff streak: failures, and clean ends of
/// connections shorter than ``BackoffPolicy/resetAfter`` (a stable connection resets it), so
/// the circuit opens again after every further `failureThreshold` of them.
public struct CircuitBreaker: Sendable, Hashable {
    /// Consecutive failed attempts that open the circuit (≥ 1). Default 10.
    public var failureThreshold: Int
    /// How long an open circuit waits before the next attempt. Default 2 minutes.
    public var coolDown: Duration

    /// A breaker that opens after `failureThreshold` failed attempts in a row and waits `coolDown` before the next.
    public init(failureThreshold: Int = 10, coolDown: Duration = .seconds(120)) {
        precondition(failureThreshold >= 1, "CircuitBreaker.failureThreshold must be >= 1")
        self.failureThreshold = failureThreshold
        self.coolDown = coolDown
    }
}

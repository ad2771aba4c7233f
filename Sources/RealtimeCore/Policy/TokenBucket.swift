/// A token bucket that hands out *reservations*: every caller gets a token, now or at a
/// computed future time, so N callers that arrive together are spread at the refill rate
/// instead of being refused. Sans-I/O: the caller passes the time.
///
/// With capacity `C` and rate `r` tokens/s, a burst of `n` reservations at one instant
/// waits `0` for the first `C`, then `1/r`, `2/r`, … for the rest.
package struct TokenBucket: Sendable, Hashable {
    /// Tokens available at once after a quiet period (≥ 1).
    package let capacity: Double
    /// Tokens added per second (> 0).
    package let refillPerSecond: Double
    /// Current tokens; negative when reservations are queued into the future.
    package private(set) var tokens: Double
    private var last: Duration?

    package init(capacity: Int, refillPerSecond: Double) {
        precondition(capacity >= 1, "TokenBucket.capacity must be >= 1")
        precondition(refillPerSecond > 0 && refillPerSecond.isFinite, "TokenBucket.refillPerSecond must be > 0")
        self.capacity = Double(capacity)
        self.refillPerSecond = refillPerSecond
        self.tokens = Double(capacity)
    }

    /// Takes one token at `now` (any monotonic time origin) and returns how long the caller
    /// must wait before using it (zero when one was available).
    package mutating func reserve(at now: Duration) -> Duration {
        if let last {
            let elapsed = Swift.max(0, (now - last).secondsDouble)
            tokens = Swift.min(capacity, tokens + elapsed * refillPerSecond)
        }
        last = now
        tokens -= 1
        return tokens >= 0 ? .zero : .clampedSeconds(-tokens / refillPerSecond)
    }
}

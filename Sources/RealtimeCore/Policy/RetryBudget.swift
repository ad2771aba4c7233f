import Synchronization

/// A reconnect budget shared by many clients in one process, so that ten thousand clients
/// cut by the same server restart do not all reconnect in the same second (issue 5, storm
/// control). Give the same instance to every client's configuration.
///
/// Each reconnect (not a client's first connection) reserves a token from a ``TokenBucket``;
/// when the bucket is empty the client waits its turn on top of its backoff delay. The first
/// connections of new clients are not limited.
public final class RetryBudget: Sendable {
    private let bucket: Mutex<TokenBucket>
    private let now: @Sendable () -> Duration

    /// - Parameters:
    ///   - burst: reconnects allowed at once after a quiet period. Default 100.
    ///   - perSecond: sustained reconnects per second. Default 50.
    public convenience init(burst: Int = 100, perSecond: Double = 50) {
        self.init(burst: burst, perSecond: perSecond, clock: ContinuousClock())
    }

    /// A budget on an injected clock (tests use a manual clock).
    public init<C: Clock>(burst: Int, perSecond: Double, clock: C) where C.Duration == Duration {
        self.bucket = Mutex(TokenBucket(capacity: burst, refillPerSecond: perSecond))
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
    }

    /// Reserves one reconnect; returns how long to wait before making it.
    public func reserve() -> Duration {
        let t = now()
        return bucket.withLock { $0.reserve(at: t) }
    }
}

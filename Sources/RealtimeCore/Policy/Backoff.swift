/// The running state of a ``BackoffPolicy``: which retry this is, the previous delay
/// (decorrelated jitter), and the server's reconnection time.
///
/// Sans-I/O: it never reads a clock or sleeps. The caller reports how long a connection
/// stayed open (``connectionEnded(after:)``) and draws delays with its own
/// `RandomNumberGenerator` (a seeded one in tests).
package struct Backoff: Sendable, Hashable {
    package let policy: BackoffPolicy
    /// Retries computed since the last reset (0 before the first failure).
    package private(set) var retry: Int = 0
    /// The last delay returned, the basis of decorrelated jitter.
    package private(set) var previousDelay: Duration?
    /// The SSE reconnection time set by the server (`retry:`), if any.
    package private(set) var serverReconnectionTime: Duration?
    /// Whether the streak began when a healthy attempt ended (a stable connection, or one that
    /// made progress): that attempt is not one of the streak's.
    package private(set) var streakFollowsHealthyAttempt = false

    /// Attempts made in this streak so far, the one that just ended included: the first
    /// connection counts, a healthy attempt that started the streak does not.
    package var attemptsInStreak: Int {
        retry + (streakFollowsHealthyAttempt ? 0 : 1)
    }

    package init(policy: BackoffPolicy) {
        self.policy = policy
    }

    /// The base delay: the server's reconnection time when it set one, else `initial`.
    package var reconnectionTime: Duration {
        serverReconnectionTime ?? policy.initial
    }

    /// Records the server's SSE `retry:` (WHATWG §9.2.6): it replaces ``BackoffPolicy/initial``
    /// as the base of the delays for the rest of the client's life (a new value replaces it),
    /// bounded by ``BackoffPolicy/minimumDelay`` and ``BackoffPolicy/serverDelayLimit``.
    /// Consecutive failures still grow from it. Ignored when the policy does not honour
    /// server hints.
    package mutating func setServerReconnectionTime(_ time: Duration) {
        guard policy.honorsServerHints else { return }
        serverReconnectionTime = Self.bounded(time, policy.serverDelayLimit)
    }

    /// `value` within `[minimumDelay, limit]` (the floor wins over a smaller limit).
    static func bounded(_ value: Duration, _ limit: Duration) -> Duration {
        Swift.max(BackoffPolicy.minimumDelay, Swift.min(value, limit))
    }

    /// Forgets the failure streak (but not the server's reconnection time).
    package mutating func reset() {
        retry = 0
        previousDelay = nil
        streakFollowsHealthyAttempt = false
    }

    /// Forgets the failure streak because the attempt that just ended was healthy: the next
    /// attempt is the first of a new streak.
    package mutating func healthyAttemptEnded() {
        reset()
        streakFollowsHealthyAttempt = true
    }

    /// Reports that a connection ended after being open for `uptime`; a stable connection
    /// (at least ``BackoffPolicy/resetAfter``) resets the streak.
    package mutating func connectionEnded(after uptime: Duration) {
        if uptime >= policy.resetAfter { healthyAttemptEnded() }
    }

    /// The delay before the next attempt, never below ``BackoffPolicy/minimumDelay``;
    /// advances the streak.
    /// - Parameters:
    ///   - retryAfter: an HTTP `Retry-After` for this failure, used as a floor for this delay
    ///     (bounded by ``BackoffPolicy/serverDelayLimit``).
    ///   - rng: the randomness for jitter.
    package mutating func nextDelay<G: RandomNumberGenerator>(
        retryAfter: Duration? = nil, using rng: inout G
    ) -> Duration {
        retry += 1
        let base = reconnectionTime
        var delay: Duration
        switch policy.jitter {
        case _ where serverReconnectionTime != nil:
            delay = hintedDelay(base, using: &rng)
        case .none:
            delay = policy.envelope(retry: retry, reconnectionTime: base)
        case .full:
            let env = policy.envelope(retry: retry, reconnectionTime: base).secondsDouble
            delay = .clampedSeconds(env > 0 ? Double.random(in: 0...env, using: &rng) : 0)
        case .equal:
            let env = policy.envelope(retry: retry, reconnectionTime: base).secondsDouble
            let half = env / 2
            delay = .clampedSeconds(half + (half > 0 ? Double.random(in: 0...half, using: &rng) : 0))
        case .decorrelated:
            // Half the envelope as the low end keeps a streak growing: without it a draw
            // may fall back to `base` after any delay, and a run of low draws looks like
            // no backoff at all.
            let low = Swift.max(base, policy.envelope(retry: retry, reconnectionTime: base) / 2).secondsDouble
            let cap = Swift.max(policy.maximum, base).secondsDouble
            let high = Swift.min(cap, Swift.max(low, (previousDelay ?? base).secondsDouble * 3))
            delay = .clampedSeconds(high > low ? Double.random(in: low...high, using: &rng) : low)
        }
        delay = Swift.max(delay, BackoffPolicy.minimumDelay)
        previousDelay = delay
        if policy.honorsServerHints, let retryAfter {
            delay = Swift.max(delay, Self.bounded(retryAfter, policy.serverDelayLimit))
        }
        return delay
    }
}

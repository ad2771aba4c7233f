/// How long to wait before each reconnection attempt: an exponential envelope with a cap,
/// randomised by a ``Jitter``, reset after a stable connection, and overridable by the server
/// within limits.
///
/// ## Formula
/// For the n-th consecutive retry (n = 1 after the first failure):
///
///     base(n) = min(maximum, reconnectionTime × multiplier^(n-1))
///     delay(n) = max(minimumDelay, jitter(base(n)))
///
/// where `reconnectionTime` is ``initial`` until the server sends an SSE `retry:` field
/// (WHATWG HTML §9.2.6 "reconnection time"), which then replaces it as the *base*: later
/// failures in a row still grow from it and are still randomised, so a server that sends
/// `retry: 0` and then fails is not retried in a tight loop. After a `retry:` the jitter adds
/// at most 25 % to `base(n)` (the policy's ``jitter`` applies until then; ``Jitter/none``
/// stays exact): the first attempt comes at the time the server asked for, not up to three
/// times later. An HTTP `Retry-After` (RFC 9110
/// §10.2.3) on a failed response is a floor for that one delay:
/// `delay = max(delay, min(retryAfter, serverDelayLimit))`.
///
/// **Limits on the server.** A server hint (`retry:` or `Retry-After`) is bounded by
/// ``maximum`` unless ``maximumServerDelay`` allows longer (opt in, e.g. for a server that
/// asks clients to come back in an hour during maintenance), and never goes below
/// ``minimumDelay``.
///
/// **The floor.** No delay is shorter than ``minimumDelay`` (100 ms), whatever the jitter or
/// the server says: at most 10 attempts per second per client, even against a server that
/// fails at once. `RealtimeClient` rejects an ``initial`` below it (`invalidConfiguration`).
/// (A 401 answered by a credential refresh is repeated at once, once per streak: it is not
/// a backoff.)
///
/// After a connection stays open for ``resetAfter``, the next failure starts again at n = 1
/// (``resetAfter`` zero: every connection that opened resets it).
///
/// ## Delays with the default policy (initial 1 s, multiplier 2, maximum 30 s)
/// | retry n | `.none` | `.full` | `.equal` | `.decorrelated` (default) |
/// |---|---|---|---|---|
/// | 1 | 1 s | 0.1–1 s | 0.5–1 s | 1–3 s |
/// | 2 | 2 s | 0.1–2 s | 1–2 s | 1 s – 3 × previous |
/// | 3 | 4 s | 0.1–4 s | 2–4 s | 2 s – 3 × previous |
/// | 4 | 8 s | 0.1–8 s | 4–8 s | 4 s – 3 × previous |
/// | 5 | 16 s | 0.1–16 s | 8–16 s | 8 s – 3 × previous |
/// | 6+ | 30 s | 0.1–30 s | 15–30 s | 15–30 s |
///
/// The policy is a value; the running state lives in `Backoff`.
public struct BackoffPolicy: Sendable, Hashable {
    /// The shortest delay the client ever waits between attempts: 100 ms. A floor under
    /// every delay (jitter, server hints included) so that no configuration and no server
    /// can make a client retry in a tight loop.
    public static let minimumDelay: Duration = .milliseconds(100)

    /// First delay, and the floor of decorrelated jitter. Default 1 s; at least
    /// ``minimumDelay`` (`RealtimeClient` rejects less with `invalidConfiguration`).
    public var initial: Duration
    /// Growth factor per consecutive failure (≥ 1). Default 2.
    public var multiplier: Double
    /// Cap on any computed delay. Default 30 s.
    public var maximum: Duration
    /// Randomisation. Default ``Jitter/decorrelated``.
    public var jitter: Jitter
    /// A connection open at least this long counts as healthy: the next failure starts the
    /// sequence again (and the `maxAttempts` count of ``ReconnectPolicy``). Default 10 s.
    /// `.zero`: every connection that opened resets it, as most WebSocket managers do (a
    /// server that accepts and drops at once is then retried at the first delay every time,
    /// never faster than ``minimumDelay``).
    public var resetAfter: Duration
    /// Whether SSE `retry:` and HTTP `Retry-After` are honoured. Default true.
    public var honorsServerHints: Bool
    /// How long a server may make the client wait (`retry:`, `Retry-After`). nil (default):
    /// ``maximum``, so a hostile or mistaken server cannot park the client beyond what its
    /// configuration allows. Set it above ``maximum`` to honour longer server delays, up to
    /// this (e.g. `.seconds(3600)` for a server that announces maintenance windows).
    public var maximumServerDelay: Duration?

    /// A backoff policy; every parameter has the documented default.
    public init(
        initial: Duration = .seconds(1), multiplier: Double = 2, maximum: Duration = .seconds(30),
        jitter: Jitter = .decorrelated, resetAfter: Duration = .seconds(10),
        honorsServerHints: Bool = true, maximumServerDelay: Duration? = nil
    ) {
        precondition(initial >= .zero, "BackoffPolicy.initial must not be negative")
        precondition(maximum >= initial, "BackoffPolicy.maximum must be >= initial")
        precondition(multiplier >= 1 && multiplier.isFinite, "BackoffPolicy.multiplier must be >= 1")
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = jitter
        self.resetAfter = resetAfter
        self.honorsServerHints = honorsServerHints
        self.maximumServerDelay = maximumServerDelay
    }

    /// Exponential growth with a cap: see the type's formula and table.
    public static func exponential(
        initial: Duration = .seconds(1), multiplier: Double = 2, maximum: Duration = .seconds(30),
        jitter: Jitter = .decorrelated, resetAfter: Duration = .seconds(10)
    ) -> BackoffPolicy {
        BackoffPolicy(initial: initial, multiplier: multiplier, maximum: maximum, jitter: jitter, resetAfter: resetAfter)
    }

    /// The same delay every time, without jitter. Server hints still apply: a `retry:` or a
    /// `Retry-After` may ask for longer, up to 30 s (the default policy's ``maximum``) or
    /// `delay` when that is longer; set ``maximumServerDelay`` to allow more.
    public static func constant(_ delay: Duration) -> BackoffPolicy {
        BackoffPolicy(
            initial: delay, multiplier: 1, maximum: delay, jitter: .none,
            maximumServerDelay: Swift.max(delay, .seconds(30)))
    }

    /// As soon as the floor allows: ``minimumDelay`` (100 ms) every time, without jitter.
    /// Server hints still apply, up to 30 s (see ``constant(_:)``): for servers that pace
    /// themselves, and for tests.
    public static let immediate = BackoffPolicy.constant(minimumDelay)

    /// `.exponential()` with decorrelated jitter: 1 s, ×2, capped at 30 s, reset after 10 s.
    public static let `default` = BackoffPolicy()

    /// The longest delay a server hint may ask for (see ``maximumServerDelay``).
    package var serverDelayLimit: Duration { maximumServerDelay ?? maximum }

    /// The deterministic envelope `base(n)` for retry `n` (1-based) from `reconnectionTime`.
    func envelope(retry n: Int, reconnectionTime: Duration) -> Duration {
        let first = reconnectionTime.secondsDouble
        let cap = Swift.max(maximum, reconnectionTime).secondsDouble
        // pow overflows to +inf for large n; min() then yields the cap.
        let grown = first * Self.power(multiplier, Swift.max(0, n - 1))
        return .clampedSeconds(Swift.min(cap, grown))
    }

    /// `base^exponent` without Foundation, for the small integer exponents backoff needs.
    static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var e = exponent
        var b = base
        while e > 0 {
            if e & 1 == 1 { result *= b }
            if result.isInfinite { return result }
            b *= b
            e >>= 1
        }
        return result
    }
}

extension Duration {
    /// The duration in seconds as a `Double` (attosecond precision is more than backoff needs).
    @usableFromInline
    var secondsDouble: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }

    /// A duration from seconds, rounded to the nanosecond (so 0.1 × 3 is exactly 300 ms) and
    /// clamped to `[0, 1e9 s]` so NaN, infinities and negative values (bad arithmetic, hostile
    /// input) can never reach a timer.
    @usableFromInline
    static func clampedSeconds(_ s: Double) -> Duration {
        guard s.isFinite, s > 0 else { return .zero }
        return .nanoseconds(Int64((Swift.min(s, 1e9) * 1e9).rounded()))
    }
}

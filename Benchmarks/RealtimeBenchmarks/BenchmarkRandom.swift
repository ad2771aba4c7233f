import RealtimeCore

/// Deterministic random numbers for corpus generation, so every run parses the same bytes and
/// expected counts are stable.
typealias BenchmarkRandom = SplitMix64

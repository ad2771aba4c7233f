import RealtimeCore

/// The deterministic generator every test seeds (SplitMix64 from RealtimeCore).
public typealias SeededGenerator = SplitMix64

import RealtimeCore

/// The deterministic generator every test seeds (SplitMix64 from RealtimeCore).
package typealias SeededGenerator = SplitMix64

import RealtimeCore

/// Cuts a byte stream into chunks chosen by a seed taken from the fuzzer's input, so the
/// "chunking never matters" invariant is checked on the fuzzer's own split points: one byte
/// at a time, tiny pieces, or pieces up to a few KiB.
enum FuzzChunks {
    static func split(_ bytes: [UInt8], seed: UInt64) -> [ArraySlice<UInt8>] {
        var rng = SplitMix64(seed: seed)
        // The low bits choose the largest piece: 1 (byte by byte), 2, 4 … 4096.
        let largest = 1 << Int(seed % 13)
        var out: [ArraySlice<UInt8>] = []
        var i = 0
        while i < bytes.count {
            let n = Int.random(in: 1...max(1, min(largest, bytes.count - i)), using: &rng)
            out.append(bytes[i..<i + n])
            i += n
        }
        return out
    }
}

/// Ways to cut a byte stream into chunks, so every parser test can prove that chunking
/// never changes the result (the habit of swift-nio's ByteToMessageDecoderVerifier).
public enum Chunking: Sendable, CustomStringConvertible {
    case whole
    case byteByByte
    /// Random split points from a seeded generator.
    case random(seed: UInt64)
    case fixed(Int)

    /// The default set each parser test runs: whole, byte by byte, and 8 random seeds.
    public static let all: [Chunking] = [.whole, .byteByByte] + (1...8).map { .random(seed: UInt64($0)) }

    public var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte-by-byte"
        case .random(let s): return "random(\(s))"
        case .fixed(let n): return "fixed(\(n))"
        }
    }

    public func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        switch self {
        case .whole:
            return [bytes[...]]
        case .byteByByte:
            return bytes.indices.map { bytes[$0..<$0 + 1] }
        case .fixed(let n):
            return stride(from: 0, to: bytes.count, by: max(1, n)).map { bytes[$0..<min($0 + max(1, n), bytes.count)] }
        case .random(let seed):
            var rng = SeededGenerator(seed: seed)
            var out: [ArraySlice<UInt8>] = []
            var i = 0
            while i < bytes.count {
                let n = Int.random(in: 1...max(1, min(64, bytes.count - i)), using: &rng)
                out.append(bytes[i..<i + n])
                i += n
            }
            return out
        }
    }
}

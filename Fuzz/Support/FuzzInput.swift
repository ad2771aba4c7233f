import RealtimeCore

/// The fuzzer's input read as parameters first, payload last (the idea of LLVM's
/// `FuzzedDataProvider`): a target takes its options (limits, a chunking seed, flags) from the
/// front and parses the rest, so the fuzzer mutates both and every crash replays from one file.
/// Reading past the end yields zeros, never a trap.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        bytes = Array(UnsafeBufferPointer(start: data, count: size))
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func uint64() -> UInt64 {
        (0..<8).reduce(UInt64(0)) { acc, _ in acc << 8 | UInt64(byte()) }
    }

    /// A value in `range`, from one or two bytes (enough for the small ranges targets use).
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        let raw = span <= 256 ? UInt64(byte()) : UInt64(byte()) << 8 | UInt64(byte())
        return range.lowerBound + Int(raw % span)
    }

    /// Up to `max` bytes, length-prefixed by one byte (so a target can take several fields).
    mutating func field(max: Int = 255) -> [UInt8] {
        let n = min(Int(byte()), max, bytes.count - min(position, bytes.count))
        defer { position += n }
        return Array(bytes[position..<position + n])
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return position < bytes.count ? Array(bytes[position...]) : []
    }
}

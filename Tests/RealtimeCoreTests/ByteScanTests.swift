import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// The SIMD line scan against a byte-at-a-time reference: every terminator and non-ASCII
/// position relative to the 16- and 64-byte blocks, every start offset, every tail length.
@Suite(.timeLimit(.minutes(1))) struct ByteScanTests {
    /// The first CR or LF in `bytes[start...]` (or the count) and the first byte ≥ 0x80 before it.
    private static func reference(_ bytes: [UInt8], from start: Int) -> (end: Int, firstHigh: Int?) {
        var i = start
        var high: Int?
        while i < bytes.count, bytes[i] != 0x0A, bytes[i] != 0x0D {
            if bytes[i] >= 0x80 && high == nil { high = i }
            i += 1
        }
        return (i, high)
    }

    private static func scan(_ bytes: [UInt8], from start: Int) -> (end: Int, firstHigh: Int) {
        bytes.withUnsafeBytes { raw in
            var high = Int.max
            let end = ByteScan.lineEnd(in: raw.baseAddress!, from: start, to: raw.count, firstHigh: &high)
            return (end, high)
        }
    }

    /// Checks the documented contract: the exact terminator; `firstHigh` exact when a
    /// non-ASCII byte precedes the terminator, otherwise not below the result.
    private static func check(_ bytes: [UInt8], from start: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let want = reference(bytes, from: start)
        let got = scan(bytes, from: start)
        #expect(got.end == want.end, "end, start \(start) in \(bytes.count) bytes", sourceLocation: sourceLocation)
        if let high = want.firstHigh {
            #expect(got.firstHigh == high, "firstHigh, start \(start) in \(bytes.count) bytes", sourceLocation: sourceLocation)
        } else {
            #expect(got.firstHigh >= got.end, "ASCII line reported non-ASCII, start \(start)", sourceLocation: sourceLocation)
        }
    }

    @Test func terminatorAtEveryOffset() {
        // Lengths around the 16- and 64-byte steps, LF or CR, with and without a tail after it.
        for length in 0...200 {
            for terminator: UInt8 in [0x0A, 0x0D] {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length) + [terminator]
                Self.check(bytes, from: 0)
                bytes += [UInt8](repeating: UInt8(ascii: "b"), count: 70)
                Self.check(bytes, from: 0)
            }
            Self.check([UInt8](repeating: UInt8(ascii: "a"), count: length), from: 0)  // none
        }
    }

    @Test func nonASCIIAtEveryOffsetBeforeAndAfterTheTerminator() {
        for length in [1, 15, 16, 17, 31, 63, 64, 65, 79, 80, 81, 130] {
            for high in 0..<(length + 20) where high != length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length + 40)
                bytes[length] = 0x0A
                bytes[high] = 0xC3
                Self.check(bytes, from: 0)
                // Also from a start that is not where the buffer begins.
                if high > 3 && length > 3 { Self.check(bytes, from: 3) }
            }
        }
    }

    @Test func controlBytesThatTripThePrefilterAreNotTerminators() {
        // TAB, VT, FF, NUL and 0x0E are below the prefilter's bound (or just above it) but are
        // not line ends: the scan must look past them.
        for control: UInt8 in [0x00, 0x09, 0x0B, 0x0C, 0x0E, 0x7F] {
            for at in [0, 5, 16, 40, 64, 100] {
                var bytes = [UInt8](repeating: UInt8(ascii: "z"), count: 150)
                bytes[at] = control
                bytes[140] = 0x0D
                Self.check(bytes, from: 0)
            }
        }
    }

    @Test func randomBuffersFromEveryStart() {
        var rng = SeededGenerator(seed: 0xB17E5)
        let rare: [UInt8] = [0x0A, 0x0D, 0x80, 0xC3, 0xFF, 0x09, 0x00, 0x0B, 0x0C, 0x0E, 0x7F]
        for _ in 0..<300 {
            let count = Int.random(in: 0...260, using: &rng)
            let density = Int.random(in: 2...200, using: &rng)
            let bytes = (0..<count).map { _ in
                Int.random(in: 0..<density, using: &rng) == 0
                    ? rare[Int.random(in: 0..<rare.count, using: &rng)] : UInt8.random(in: 0x20...0x7E, using: &rng)
            }
            for start in stride(from: 0, through: count, by: max(1, count / 7)) {
                Self.check(bytes, from: start)
            }
        }
    }
}

import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// The SSE parser's vector UTF-8 check (used for data values from their first non-ASCII byte)
/// against the standard library, at every length and alignment around its 16- and 64-byte steps.
@Suite(.timeLimit(.minutes(1))) struct SSEUTF8Tests {
    private static func vectorSaysValid(_ bytes: [UInt8], prefix: Int = 3) -> Bool {
        let line = [UInt8](repeating: UInt8(ascii: "p"), count: prefix) + bytes
        return line.withUnsafeBytes { SSEUTF8.isValid($0.baseAddress!, nonASCIIFrom: prefix, to: line.count) }
    }

    private static func stdlibSaysValid(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    /// Sequences at the edges of Unicode Table 3-7, valid and not.
    static let edges: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
        [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFF], [0xFE], [0xE2, 0x82],
        [0xF0, 0x9F, 0x98], [0xC3], [0xE2, 0x82, 0xAC, 0x80], [0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x8E, 0x89],
    ]

    @Test func everyEdgeSequenceAtEveryOffsetAndLength() {
        var checked = 0
        for sequence in Self.edges {
            for before in [0, 1, 2, 3, 12, 13, 14, 15, 16, 17, 30, 47, 60, 61, 62, 63, 64, 65, 79, 100] {
                for after in [0, 1, 2, 3, 13, 16, 40, 70] {
                    // Non-ASCII first (the parser's case), with ASCII padding around the sequence.
                    let bytes = [0xC3, 0xA9] + [UInt8](repeating: UInt8(ascii: "a"), count: before) + sequence
                        + [UInt8](repeating: UInt8(ascii: "b"), count: after)
                    #expect(Self.vectorSaysValid(bytes) == Self.stdlibSaysValid(bytes), "\(sequence) after \(before), then \(after)")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.edges.count * 20 * 8)
    }

    @Test func randomMixedTextAgreesWithTheStandardLibrary() {
        var rng = SeededGenerator(seed: 0x07F8)
        let pieces: [[UInt8]] = Self.edges + [Array("über".utf8), Array("日本語".utf8), Array("🎉".utf8), Array("данные".utf8)]
        var invalid = 0
        for _ in 0..<3000 {
            var bytes: [UInt8] = pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            for _ in 0..<Int.random(in: 0...30, using: &rng) {
                if Int.random(in: 0..<3, using: &rng) == 0 {
                    bytes += [UInt8](repeating: UInt8(ascii: "x"), count: Int.random(in: 0...70, using: &rng))
                }
                // Mostly valid pieces, so that many inputs are valid and long.
                bytes += Int.random(in: 0..<6, using: &rng) == 0
                    ? pieces[Int.random(in: 0..<pieces.count, using: &rng)]
                    : pieces[Int.random(in: 27..<pieces.count, using: &rng)]
            }
            let expected = Self.stdlibSaysValid(bytes)
            if !expected { invalid += 1 }
            #expect(Self.vectorSaysValid(bytes) == expected, "\(bytes)")
            #expect(Self.vectorSaysValid(bytes, prefix: 1) == expected, "\(bytes)")
        }
        // Both outcomes are exercised.
        #expect(invalid > 300 && invalid < 2700)
    }
}

import Testing
import RealtimeCore
import RealtimeTestSupport

@Suite(.timeLimit(.minutes(1))) struct UTF8ValidatorTests {
    static func stdlibSaysValid(_ bytes: [UInt8]) -> Bool {
        String(validating: bytes, as: UTF8.self) != nil
    }

    static func incremental(_ bytes: [UInt8], _ chunking: Chunking) -> Bool {
        var v = UTF8Validator()
        for chunk in chunking.split(bytes) where !v.validate(chunk) { return false }
        return v.finish()
    }

    /// Inputs built to hit every boundary of Table 3-7.
    static let tricky: [[UInt8]] = {
        var out: [[UInt8]] = [
            [], [0x00], [0x7F], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF],
            [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFF], [0xFE], [0xE2, 0x82], [0xF0, 0x9F, 0x98],
            [0xE2, 0x82, 0xAC, 0x80], Array("κόσμε".utf8), [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
        ]
        // Each tricky sequence embedded at every offset of a 48-byte ASCII run (vector path).
        let seeds = out
        for s in seeds where !s.isEmpty {
            for offset in [0, 1, 2, 3, 13, 14, 15, 16, 17, 29, 30, 31, 32, 33, 40, 63, 64, 95, 96, 97, 99, 127, 128, 131, 200] {
                out.append([UInt8](repeating: 0x61, count: offset) + s + [UInt8](repeating: 0x62, count: 48))
                out.append(Array("日本語テキスト".utf8).prefix(offset) + s + Array("😀漢字テスト🎉".utf8))
            }
        }
        return out
    }()

    @Test func trickyInputsAgreeWithStdlibWholeAndSplit() {
        for input in Self.tricky {
            let expected = Self.stdlibSaysValid(input)
            #expect(UTF8Validator.isValid(input) == expected, "\(input)")
            for chunking in Chunking.all {
                #expect(Self.incremental(input, chunking) == expected, "\(input) \(chunking)")
            }
        }
    }

    @Test func randomInputsAgreeWithStdlib() {
        var rng = SeededGenerator(seed: 42)
        let scalars: [Unicode.Scalar] = ["a", "Z", "~", "\u{7F}", "\u{80}", "é", "\u{7FF}", "\u{800}", "漢", "\u{D7FF}", "\u{E000}", "\u{FFFD}", "\u{FFFF}", "\u{10000}", "😀", "\u{10FFFF}"]
        for round in 0..<600 {
            var bytes: [UInt8] = []
            let count = Int.random(in: 0...200, using: &rng)
            for _ in 0..<count {
                if Int.random(in: 0..<100, using: &rng) < (round % 3 == 0 ? 0 : 3) {
                    bytes.append(UInt8.random(in: 0...255, using: &rng))  // noise
                } else {
                    bytes += Array(String(scalars.randomElement(using: &rng)!).utf8)
                }
            }
            let expected = Self.stdlibSaysValid(bytes)
            #expect(UTF8Validator.isValid(bytes) == expected, "\(bytes)")
            let chunking = Chunking.random(seed: UInt64(round))
            #expect(Self.incremental(bytes, chunking) == expected, "\(bytes)")
        }
    }

    @Test func everyTwoByteAndThreeBytePrefixAgreesWithStdlib() async {
        // Exhaustive over lead + second byte (with a valid-looking tail), in a vector-sized buffer.
        for lead in UInt8(0x80)...0xFF {
            await yieldToOtherTests(every: 8, Int(lead))
            for second in UInt8(0)...0xFF {
                let input = [UInt8](repeating: 0x20, count: 20) + [lead, second, 0x80, 0x80] + [UInt8](repeating: 0x20, count: 20)
                #expect(UTF8Validator.isValid(input) == Self.stdlibSaysValid(input), "\(lead) \(second)")
            }
        }
    }

    @Test func failsFastOnTheByteThatMakesItInvalid() {
        var v = UTF8Validator()
        do { let ok = v.validate([0xF4]); #expect(ok) }
        do { let ok = v.validate([0x90]); #expect(!ok) }  // > U+10FFFF, known without the last two bytes
        #expect(v.hasFailed)
        do { let ok = v.validate([0x41]); #expect(!ok) }  // stays failed

        var s = UTF8Validator()
        do { let ok = s.validate([0x61, 0xED]); #expect(ok) }
        do { let ok = s.validate([0xA0]); #expect(!ok) }  // surrogate

        var o = UTF8Validator()
        do { let ok = o.validate([0xE0, 0x80]); #expect(!ok) }  // overlong
    }

    @Test func codePointSplitAcrossCallsIsFineAndTruncationIsCaughtAtFinish() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        var v = UTF8Validator()
        do { let ok = v.validate(euro.prefix(1)); #expect(ok) }
        #expect(!v.isAtBoundary)
        do { let ok = v.validate(euro.dropFirst()); #expect(ok) }
        #expect(v.finish())
        var t = UTF8Validator()
        do { let ok = t.validate(euro.prefix(2)); #expect(ok) }
        #expect(!t.finish())
    }
}

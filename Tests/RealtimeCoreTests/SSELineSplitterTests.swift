import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// The line layer on its own: every chunking must give the same lines.
@Suite(.timeLimit(.minutes(1))) struct SSELineSplitterTests {
    private func lines(_ input: [UInt8], maxLineLength: Int = 1 << 20) -> (lines: [[UInt8]], error: Bool) {
        var first: ([[UInt8]], Bool)?
        for chunking in Chunking.all {
            var splitter = SSELineSplitter(maxLineLength: maxLineLength)
            var out: [[UInt8]] = []
            var failed = false
            do {
                for chunk in chunking.split(input) {
                    try chunk.withUnsafeBytes { raw in
                        var cursor = splitter.begin(raw)
                        while let line = splitter.next(raw, &cursor) {
                            switch line {
                            case .tooLong: throw splitter.tooLongError
                            case .chunk(let s, let e): out.append(Array(raw[s..<e]))
                            case .buffered:
                                out.append(splitter.partial)
                                splitter.consumedBuffered()
                            }
                        }
                    }
                }
            } catch {
                failed = true
            }
            if let first {
                #expect(first.0 == out && first.1 == failed, "chunking \(chunking)")
            } else {
                first = (out, failed)
            }
        }
        return first.map { (lines: $0.0, error: $0.1) } ?? ([], false)
    }

    private func text(_ s: String, maxLineLength: Int = 1 << 20) -> [String] {
        lines(Array(s.utf8), maxLineLength: maxLineLength).lines.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func terminators() {
        #expect(text("a\nb\rc\r\nd\n\re\r\r\nf") == ["a", "b", "c", "d", "", "e", ""])
        #expect(text("\n\n") == ["", ""])
        #expect(text("\r\n\r\n") == ["", ""])
        #expect(text("\r\r") == ["", ""])
        #expect(text("no terminator") == [])
    }

    @Test func bom() {
        #expect(text("\u{FEFF}a\n") == ["a"])
        #expect(text("\u{FEFF}\u{FEFF}a\n") == ["\u{FEFF}a"])
        #expect(lines([0xEF, 0xBB, 0x0A]).lines == [[0xEF, 0xBB]])
        #expect(lines([0xEF, 0x0A, 0x0A]).lines == [[0xEF], []])
        #expect(lines([0xEF, 0xBB, 0xBF, 0x0A]).lines == [[]])
    }

    @Test func lineLimit() {
        #expect(lines(Array("abcd\n".utf8), maxLineLength: 4).lines == [Array("abcd".utf8)])
        #expect(lines(Array("abcde\n".utf8), maxLineLength: 4).error)
        #expect(lines(Array("abcde".utf8), maxLineLength: 4).error)
        // The terminator does not count, whichever it is.
        #expect(!lines(Array("abcd\r\nabcd\r".utf8), maxLineLength: 4).error)
    }

    @Test func manyLinesOfMixedStyles() {
        var rng = SeededGenerator(seed: 7)
        var input: [UInt8] = []
        var expected: [[UInt8]] = []
        var lastWasCR = false
        for _ in 0..<500 {
            // After a lone CR an empty line would make "CR LF", one terminator: avoid it.
            let len = Int.random(in: (lastWasCR ? 1 : 0)...30, using: &rng)
            let line = (0..<len).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            expected.append(line)
            input += line
            let kind = Int.random(in: 0..<3, using: &rng)
            switch kind {
            case 0: input.append(0x0A)
            case 1: input.append(0x0D)
            default: input += [0x0D, 0x0A]
            }
            lastWasCR = kind == 1
        }
        #expect(lines(input).lines == expected)
    }
}

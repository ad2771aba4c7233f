import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// The parser on lines around and beyond the scan's vector widths (16 and 64 bytes), with
/// non-ASCII bytes (valid and invalid) near block boundaries, every line-ending style, and
/// chunk sizes that cut lines, code points and CRLF pairs: against the spec transcription.
@Suite(.timeLimit(.minutes(1))) struct SSEParserLongLineTests {
    static let chunkings: [Chunking] = [.whole, .fixed(1), .fixed(15), .fixed(16), .fixed(63), .fixed(64), .fixed(65), .fixed(100), .fixed(4096)]
        + (1...4).map { .random(seed: UInt64($0)) }

    /// Parses `input` with each chunking (the plain and the borrowing feed) and expects the
    /// reference's outputs and last event ID every time.
    static func expectMatchesReference(_ input: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let expected = SSEParserReferenceTests.reference(input)
        for chunking in chunkings {
            var parser = SSEParser()
            var outputs: [SSEParser.Output] = []
            var borrowingParser = SSEParser()
            var borrowed: [SSEParser.Output] = []
            for chunk in chunking.split(input) {
                try chunk.withUnsafeBytes { raw in
                    try parser.feed(raw) { outputs.append($0) }
                    try borrowingParser.feed(raw, { borrowed.append($0) }) { event in
                        borrowed.append(.event(ServerSentEvent(type: event.type, data: event.decodedData(), lastEventID: event.lastEventID)))
                    }
                }
            }
            #expect(outputs == expected.outputs, "\(label), chunking \(chunking)", sourceLocation: sourceLocation)
            #expect(borrowed == expected.outputs, "\(label) borrowing, chunking \(chunking)", sourceLocation: sourceLocation)
            #expect(parser.lastEventID == expected.lastEventID, "\(label), chunking \(chunking)", sourceLocation: sourceLocation)
        }
        return expected.outputs.count
    }

    @Test func lineLengthsAroundTheVectorWidths() throws {
        var events = 0
        for length in [0, 1, 9, 10, 11, 15, 16, 17, 47, 58, 59, 63, 64, 65, 121, 127, 128, 129, 1000, 5000] {
            for ending in ["\n", "\r", "\r\n"] {
                let value = String(repeating: "v", count: length)
                let text = "data: \(value)\(ending)data:\(value)\(ending)id: \(value)\(ending)\(ending)"
                events += try Self.expectMatchesReference(Array(text.utf8), "length \(length) ending \(Array(ending.utf8))")
            }
        }
        #expect(events == 20 * 3)
    }

    @Test func nonASCIINearBlockBoundaries() throws {
        let inserts: [[UInt8]] = [Array("é".utf8), Array("日".utf8), Array("🎉".utf8), [0xFF], [0xC3], [0xE6, 0x97], [0x80], [0xED, 0xA0, 0x80]]
        var events = 0
        for length in [20, 70, 140] {
            // Positions in the line, counted from its first byte ("data: " is 6 bytes).
            for position in [6, 7, 14, 15, 16, 17, 30, 31, 32, 62, 63, 64, 65, 66, 78, 79, 80, 81] where position < length + 6 {
                for insert in inserts {
                    var value = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    let at = position - 6
                    value.replaceSubrange(at..<min(at + insert.count, value.count), with: insert)
                    for ending in [[UInt8(0x0A)], [0x0D], [0x0D, 0x0A]] {
                        let input = Array("data: ".utf8) + value + ending + Array("data: tail".utf8) + ending + ending
                        events += try Self.expectMatchesReference(input, "length \(length) at \(position) insert \(insert)")
                    }
                }
            }
        }
        #expect(events == 912)
    }

    @Test func randomLongLinesMatchTheSpecTranscription() throws {
        var rng = SeededGenerator(seed: 0x10_C0DE)
        let pieces: [[UInt8]] = [Array("é".utf8), Array("日本".utf8), Array("🎉".utf8), [0xFF], [0xC3], [0x80], [0x09], [0x00], Array(":".utf8)]
        var events = 0
        for round in 0..<60 {
            var input: [UInt8] = []
            if round % 5 == 0 { input += [0xEF, 0xBB, 0xBF] }
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let field = ["data: ", "data:", "id: ", "event: ", ": ", "retry: "][Int.random(in: 0..<6, using: &rng)]
                input += Array(field.utf8)
                for _ in 0..<Int.random(in: 0...300, using: &rng) {
                    if Int.random(in: 0..<40, using: &rng) == 0 {
                        input += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
                    } else {
                        input.append(UInt8.random(in: 0x20...0x7E, using: &rng))
                    }
                }
                let ending = [[UInt8(0x0A)], [0x0D], [0x0D, 0x0A]][Int.random(in: 0..<3, using: &rng)]
                input += ending
                if Int.random(in: 0..<3, using: &rng) == 0 { input += ending }  // dispatch
            }
            events += try Self.expectMatchesReference(input, "round \(round)")
        }
        #expect(events > 30)
    }
}

extension SSEParserLongLineTests {
    /// 4 KiB events in 16 KiB chunks (the end-to-end path's shape): one event in four crosses a
    /// chunk boundary and is assembled in the splitter's buffer, whose first data line the
    /// event takes over; both feeds must give the events exactly.
    @Test func eventsCrossingChunkBoundariesInOneLine() throws {
        var input: [UInt8] = []
        var expected: [String] = []
        for i in 0..<40 {
            var value = String(repeating: "q", count: 4000 + i)
            if i % 3 == 0 { value += "日本語" }
            if i % 5 == 0 { value += "ÿ" }
            expected.append(value)
            input += Array("data: \(value)\n\n".utf8)
            if i % 7 == 0 { input += Array("data\n\n".utf8); expected.append("") }
        }
        for chunk in [16 << 10, 4096, 1000] {
            var parser = SSEParser()
            var plain: [String] = []
            var borrowed: [String] = []
            var copy = SSEParser()
            try input.withUnsafeBytes { raw in
                var i = 0
                while i < raw.count {
                    let piece = UnsafeRawBufferPointer(rebasing: raw[i..<min(i + chunk, raw.count)])
                    try parser.feed(piece, { _ in }) { borrowed.append($0.decodedData()) }
                    try copy.feed(piece) { if case .event(let e) = $0 { plain.append(e.data) } }
                    i += chunk
                }
            }
            #expect(plain == expected, "chunk \(chunk)")
            #expect(borrowed == expected, "chunk \(chunk)")
        }
    }
}

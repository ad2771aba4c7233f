import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// The outcome of parsing one input: outputs in order, the error that stopped parsing (if
/// any), and the last event ID afterwards.
struct SSEParseResult: Equatable {
    var outputs: [SSEParser.Output]
    var error: RealtimeError.Code?
    var lastEventID: String

    var events: [ServerSentEvent] {
        outputs.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }
    var data: [String] { events.map(\.data) }
}

/// Parses `input` with every chunking in `Chunking.all` (plus a few fixed sizes), expects
/// identical results from all of them, and returns that result.
func parseSSE(
    _ input: [UInt8], limits: SSEParser.Limits = .default, lastEventID: String = "", strictUTF8: Bool = false,
    reportsComments: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
) -> SSEParseResult {
    var results: [(String, SSEParseResult)] = []
    for chunking in Chunking.all + [.fixed(2), .fixed(3), .fixed(7)] {
        var parser = SSEParser(limits: limits, lastEventID: lastEventID, strictUTF8: strictUTF8, reportsComments: reportsComments)
        var outputs: [SSEParser.Output] = []
        var code: RealtimeError.Code?
        do {
            for chunk in chunking.split(input) {
                try chunk.withUnsafeBytes { try parser.feed($0) { outputs.append($0) } }
            }
        } catch let error as RealtimeError {
            code = error.code
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
        results.append((chunking.description, SSEParseResult(outputs: outputs, error: code, lastEventID: parser.lastEventID)))
    }
    let first = results[0].1
    for (name, result) in results.dropFirst() {
        #expect(result == first, "chunking \(name) differs from whole", sourceLocation: sourceLocation)
    }
    return first
}

func parseSSE(
    _ text: String, limits: SSEParser.Limits = .default, lastEventID: String = "", strictUTF8: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) -> SSEParseResult {
    parseSSE(Array(text.utf8), limits: limits, lastEventID: lastEventID, strictUTF8: strictUTF8, sourceLocation: sourceLocation)
}

private func ev(_ data: String, type: String = "message", id: String = "") -> SSEParser.Output {
    .event(ServerSentEvent(type: type, data: data, lastEventID: id))
}

@Suite(.timeLimit(.minutes(1))) struct SSEParserTests {
    @Test func simpleEvent() {
        #expect(parseSSE("data: hello\n\n").outputs == [ev("hello")])
    }

    // MARK: BOM (WHATWG §9.2.5: the stream is decoded with "UTF-8 decode", which strips one BOM)

    @Test func leadingBOMStrippedOnce() {
        #expect(parseSSE("\u{FEFF}data: a\n\n").outputs == [ev("a")])
        // A second BOM is content: the first line's field name becomes "\u{FEFF}data".
        #expect(parseSSE("\u{FEFF}\u{FEFF}data: a\n\ndata: b\n\n").outputs == [ev("b")])
        // A BOM later in the stream is not stripped either.
        #expect(parseSSE("data: a\n\n\u{FEFF}data: b\n\n").outputs == [ev("a")])
        #expect(parseSSE("\u{FEFF}").outputs == [])
    }

    @Test func partialBOMIsContent() {
        // EF BB followed by 'd': the two bytes belong to the first line (invalid UTF-8 there).
        let r = parseSSE([0xEF, 0xBB] + Array("data: x\n\ndata: y\n\n".utf8))
        #expect(r.outputs == [ev("y")])
        // EF alone then a line end: the first line is "\u{FFFD}" (an unknown field).
        #expect(parseSSE([0xEF] + Array("\ndata: z\n\n".utf8)).outputs == [ev("z")])
        // A stray EF inside data is decoded as U+FFFD.
        #expect(parseSSE(Array("data: ".utf8) + [0xEF, 0xBB] + Array("\n\n".utf8)).data == ["\u{FFFD}"])
    }

    @Test func bomAcceptedAgainAfterFinish() throws {
        var p = SSEParser()
        _ = try p.feed(Array("\u{FEFF}data: a\n\n".utf8))
        p.finish()
        #expect(try p.feed(Array("\u{FEFF}data: b\n\n".utf8)) == [ev("b")])
    }

    // MARK: Line endings

    @Test func crLfCrlfAndMixed() {
        #expect(parseSSE("data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n").data == ["a", "b", "c", "d"])
        #expect(parseSSE("data: a\r\ndata: b\r\n\r\n").data == ["a\nb"])
        #expect(parseSSE("data: a\rdata: b\r\r").data == ["a\nb"])
        // LF CR is two line ends: a blank line.
        #expect(parseSSE("data: a\n\rdata: b\n\n").data == ["a", "b"])
        // CRLF where each byte closes a different line.
        #expect(parseSSE("data: a\r\r\n").data == ["a"])
    }

    @Test func crAtChunkEndThenLfInNextChunk() throws {
        var p = SSEParser()
        var out = try p.feed(Array("data: a\r".utf8))
        out += try p.feed(Array("\ndata: b\r\n\r".utf8))
        out += try p.feed(Array("\n".utf8))
        #expect(out == [ev("a\nb")])
        // The CR alone ends the line: a blank line after it dispatches at once.
        var q = SSEParser()
        var out2 = try q.feed(Array("data: a\r".utf8))
        out2 += try q.feed(Array("\r".utf8))
        #expect(out2 == [ev("a")])
        // An LF owed to a CR is skipped only once.
        var r = SSEParser()
        var out3 = try r.feed(Array("data: a\r".utf8))
        out3 += try r.feed(Array("\n\n".utf8))
        #expect(out3 == [ev("a")])
    }

    // MARK: Field rules (WHATWG §9.2.6)

    @Test func comments() {
        #expect(parseSSE(": ping\n:\n:: x\ndata: a\n: between\n\n").outputs == [ev("a")])
        #expect(parseSSE(": only a comment\n\n").outputs == [])
    }

    @Test func colonSplitRemovesOneSpace() {
        #expect(parseSSE("data:a\n\n").data == ["a"])
        #expect(parseSSE("data:  a\n\n").data == [" a"])
        #expect(parseSSE("data: a: b\n\n").data == ["a: b"])
        #expect(parseSSE("data::\n\n").data == [":"])
        #expect(parseSSE("data: \n\n").data == [""])
        #expect(parseSSE("data:\n\n").data == [""])
        #expect(parseSSE("data:\ta\n\n").data == ["\ta"])
        #expect(parseSSE("event:x\ndata\n\n").events.map(\.type) == ["x"])
        #expect(parseSSE("event:  x\ndata\n\n").events.map(\.type) == [" x"])
    }

    @Test func fieldWithoutColon() {
        #expect(parseSSE("data\n\n").outputs == [ev("")])
        #expect(parseSSE("data\ndata\n\n").outputs == [ev("\n")])
        #expect(parseSSE("event: x\nevent\ndata: y\n\n").outputs == [ev("y")])
        #expect(parseSSE("id: 1\nid\ndata: y\n\n").outputs == [ev("y", id: "")])
    }

    @Test func dataJoinedWithLF() {
        #expect(parseSSE("data: a\ndata: b\ndata: c\n\n").data == ["a\nb\nc"])
        #expect(parseSSE("data: a\ndata:\n\n").data == ["a\n"])
        #expect(parseSSE("data:\ndata: a\n\n").data == ["\na"])
        #expect(parseSSE("data: a\n: comment\nevent: t\ndata: b\n\n").outputs == [ev("a\nb", type: "t")])
    }

    @Test func eventTypeResetAfterDispatch() {
        #expect(parseSSE("event: add\ndata: 1\n\ndata: 2\n\n").outputs == [ev("1", type: "add"), ev("2")])
        // Reset even by a blank line that dispatches nothing.
        #expect(parseSSE("event: add\n\ndata: 2\n\n").outputs == [ev("2")])
        #expect(parseSSE("event:\ndata: 3\n\n").outputs == [ev("3")])
        #expect(parseSSE("event: a\nevent: b\ndata: 4\n\n").outputs == [ev("4", type: "b")])
        // Repeated types (the cache) and changes between them.
        #expect(parseSSE("event: d\ndata: 1\n\nevent: d\ndata: 2\n\nevent: e\ndata: 3\n\nevent: d\ndata: 4\n\n").events.map(\.type)
            == ["d", "d", "e", "d"])
    }

    @Test func emptyDataNotDispatched() {
        #expect(parseSSE("event: x\n\n").outputs == [])
        #expect(parseSSE("\n\n\n\r\n\r").outputs == [])
        #expect(parseSSE("id: 1\n\n").outputs == [])
        #expect(parseSSE("foo: bar\n\ndata: a\n\n").outputs == [ev("a")])
    }

    @Test func lastEventIDPersistsAndResets() {
        let r = parseSSE("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\ndata: d\n\nid:\ndata: e\n\n")
        #expect(r.outputs == [ev("a", id: "1"), ev("b", id: "1"), ev("c"), ev("d", id: "2"), ev("e")])
        #expect(r.lastEventID == "")
        // The id applies to the event it is in, wherever it appears before the blank line.
        #expect(parseSSE("data: a\nid: 9\n\n").outputs == [ev("a", id: "9")])
        // A blank line with no data still updates the last event ID.
        #expect(parseSSE("id: 7\n\n").lastEventID == "7")
        #expect(parseSSE("id: 7\n\ndata: x\n\n").outputs == [ev("x", id: "7")])
        // Not updated before the blank line: an undispatched id at EOF does not count.
        #expect(parseSSE("id: 1\ndata: a\n\nid: 5\ndata: x").lastEventID == "1")
        #expect(parseSSE("id: 1\ndata: a\n\nid: 5\n").lastEventID == "1")
        // Multibyte ids.
        #expect(parseSSE("id: é🎉\ndata: a\n\n").outputs == [ev("a", id: "é🎉")])
    }

    @Test func idWithNULIgnored() {
        let r = parseSSE("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\nid: \u{0}\ndata: c\n\n")
        #expect(r.outputs == [ev("a", id: "1"), ev("b", id: "1"), ev("c", id: "1")])
    }

    @Test func initialLastEventID() throws {
        let r = parseSSE("data: a\n\nid: 4\ndata: b\n\n", lastEventID: "3")
        #expect(r.outputs == [ev("a", id: "3"), ev("b", id: "4")])
        var p = SSEParser(lastEventID: "x")
        #expect(p.lastEventID == "x")
        _ = try p.feed(Array("id: y\ndata: 1".utf8))
        p.finish()
        // The undispatched id is dropped with the pending data; the last dispatched one stays.
        #expect(p.lastEventID == "x")
        #expect(try p.feed(Array("data: 2\n\n".utf8)) == [ev("2", id: "x")])
    }

    @Test func retryDigitsOnly() {
        #expect(parseSSE("retry: 1000\n").outputs == [.retry(milliseconds: 1000)])
        #expect(parseSSE("retry:0\n").outputs == [.retry(milliseconds: 0)])
        #expect(parseSSE("retry: 007\n").outputs == [.retry(milliseconds: 7)])
        for bad in ["retry: 10a\n", "retry: -1\n", "retry: +1\n", "retry:\n", "retry\n", "retry: 1.5\n",
                    "retry:  100\n", "retry: 100 \n", "retry: ١٢\n", "retry: 1e3\n"] {
            #expect(parseSSE(bad).outputs == [], "\(bad.debugDescription)")
        }
        #expect(parseSSE("retry: 99999999999999999999999999\n").outputs == [.retry(milliseconds: .max)])
        // Emitted where it appears, before the event it is part of.
        #expect(parseSSE("data: a\nretry: 5\n\n").outputs == [.retry(milliseconds: 5), ev("a")])
        // A retry field is not data: no dispatch from it alone.
        #expect(parseSSE("retry: 5\n\n").outputs == [.retry(milliseconds: 5)])
    }

    @Test func unknownAndWrongCaseFieldsIgnored() {
        let input = "Data: x\nDATA: x\nEvent: y\nID: 1\nId: 1\nRetry: 1\nfoo: bar\ndata : x\n data: x\ndat: x\ndataa: x\nevents: z\nids: 3\nretry2: 4\n\n"
        let r = parseSSE(input)
        #expect(r.outputs == [])
        #expect(r.lastEventID == "")
        #expect(parseSSE("foo\nevent: t\nbar: baz\ndata: ok\n\n").outputs == [ev("ok", type: "t")])
    }

    @Test func pendingDataAtEndDiscarded() throws {
        #expect(parseSSE("data: a\n\ndata: b\n").data == ["a"])
        #expect(parseSSE("data: a\n\ndata: b").data == ["a"])
        var p = SSEParser()
        #expect(try p.feed(Array("data: a\n\ndata: b\nevent: t\n".utf8)) == [ev("a")])
        p.finish()
        // Nothing of the previous stream leaks into the next one.
        #expect(try p.feed(Array("data: c\n\n".utf8)) == [ev("c")])
        _ = try p.feed(Array("data: unterminated".utf8))
        p.finish()
        #expect(try p.feed(Array("data: d\n\n".utf8)) == [ev("d")])
        // A CR that ended the last stream does not eat the next stream's first LF.
        _ = try p.feed(Array("data: e\r".utf8))
        p.finish()
        #expect(try p.feed(Array("\ndata: f\n\n".utf8)) == [ev("f")])
    }

    // MARK: UTF-8

    @Test func multibyteSplitAcrossChunks() {
        let text = "héllo 日本語 🎉🇫🇷 ∑ — ok"
        // Byte-by-byte and random chunkings cut inside every code point.
        let r = parseSSE("event: 日本\nid: ñ\ndata: \(text)\ndata: \(text)\n\n")
        #expect(r.outputs == [ev("\(text)\n\(text)", type: "日本", id: "ñ")])
        let long = String(repeating: "aé日🎉", count: 300)
        #expect(parseSSE("data: \(long)\n\n").data == [long])
    }

    @Test func invalidUTF8BecomesReplacement() {
        func data(_ bytes: [UInt8]) -> [String] {
            parseSSE(Array("data: ".utf8) + bytes + Array("\n\n".utf8)).data
        }
        #expect(data([0x61, 0xFF, 0x62]) == ["a\u{FFFD}b"])
        #expect(data([0xC3]) == ["\u{FFFD}"])
        #expect(data([0x80]) == ["\u{FFFD}"])
        // Overlong encodings, surrogates and beyond U+10FFFF: one U+FFFD per byte.
        #expect(data([0xC0, 0xAF]) == ["\u{FFFD}\u{FFFD}"])
        #expect(data([0xE0, 0x80, 0xAF]) == ["\u{FFFD}\u{FFFD}\u{FFFD}"])
        #expect(data([0xED, 0xA0, 0x80]) == ["\u{FFFD}\u{FFFD}\u{FFFD}"])
        #expect(data([0xF4, 0x90, 0x80, 0x80]) == ["\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"])
        // A truncated sequence is one maximal subpart: one U+FFFD.
        #expect(data([0xF0, 0x9F, 0x8E]) == ["\u{FFFD}"])
        #expect(data([0xF0, 0x9F, 0x8E, 0x41]) == ["\u{FFFD}A"])
        #expect(data([0xE6, 0x97, 0x41, 0xE6, 0x97, 0xA5]) == ["\u{FFFD}A日"])
        // A truncated sequence just before a line end does not swallow the LF.
        #expect(parseSSE(Array("data: ".utf8) + [0xE6, 0x97] + Array("\ndata: x\n\n".utf8)).data == ["\u{FFFD}\nx"])
        // Invalid bytes after a long ASCII run (the word-at-a-time path) and in type and id.
        let ascii = String(repeating: "x", count: 77)
        #expect(data(Array(ascii.utf8) + [0xFE] + Array(ascii.utf8)) == [ascii + "\u{FFFD}" + ascii])
        let r = parseSSE(Array("event: t".utf8) + [0xFF] + Array("\nid: i".utf8) + [0xC3] + Array("\ndata: d\n\n".utf8))
        #expect(r.outputs == [ev("d", type: "t\u{FFFD}", id: "i\u{FFFD}")])
    }

    @Test func utf8ValidatorAgreesWithStandardLibrary() async {
        var rng = SeededGenerator(seed: 42)
        let pieces: [[UInt8]] = [[0x41], [0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x8E, 0x89], [0xFF], [0x80],
                                 [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90], [0xE0, 0xA0, 0x80], [0xEF, 0xBF, 0xBF]]
        for round in 0..<2000 {
            await yieldToOtherTests(every: 100, round)
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                if Bool.random(using: &rng) {
                    bytes += [UInt8](repeating: 0x61, count: Int.random(in: 0...40, using: &rng))
                }
                bytes += pieces[Int.random(in: 0..<pieces.count, using: &rng)]
            }
            let expected = String(decoding: bytes, as: UTF8.self)
            let got = bytes.withUnsafeBytes { SSEUTF8.string($0) }
            #expect(got == expected)
            let valid = bytes.withUnsafeBytes { SSEUTF8.validate($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: $0.count) }
            #expect(valid.valid == (String(validating: bytes, as: UTF8.self) != nil))
            #expect(valid.ascii == (valid.valid && bytes.allSatisfy { $0 < 0x80 }))
        }
    }

    // MARK: Limits

    @Test func lineTooLong() throws {
        let limits = SSEParser.Limits(maxLineLength: 10, maxEventSize: 100)
        #expect(parseSSE("data: 1234\n\n", limits: limits).outputs == [ev("1234")])
        let r = parseSSE("data: a\n\ndata: 12345\n\ndata: b\n\n", limits: limits)
        #expect(r.outputs == [ev("a")])
        #expect(r.error == .lineTooLong)
        // An unterminated line is cut off as soon as it exceeds the limit.
        #expect(parseSSE(": " + String(repeating: "x", count: 50), limits: limits).error == .lineTooLong)
        // Comments count too: the limit bounds memory, whatever the line is.
        #expect(parseSSE(": 0123456789\n", limits: limits).error == .lineTooLong)
    }

    @Test func eventTooLarge() throws {
        let limits = SSEParser.Limits(maxLineLength: 100, maxEventSize: 5)
        #expect(parseSSE("data: 123\ndata: 4\n\n", limits: limits).data == ["123\n4"])
        let r = parseSSE("data: a\n\ndata: 123\ndata: 45\n\n", limits: limits)
        #expect(r.data == ["a"])
        #expect(r.error == .eventTooLarge)
        #expect(parseSSE("data: 123456\n\n", limits: limits).error == .eventTooLarge)
    }

    @Test func afterALimitErrorFeedRethrowsUntilFinish() throws {
        var p = SSEParser(limits: .init(maxLineLength: 4, maxEventSize: 4))
        #expect(throws: RealtimeError.self) { try p.feed(Array("data: 12345\n\n".utf8)) }
        do {
            _ = try p.feed(Array("data\n\n".utf8))
            Issue.record("expected a rethrow")
        } catch let e as RealtimeError {
            #expect(e.code == .lineTooLong)
            #expect(e.failureClass == .limit)
        }
        p.finish()
        #expect(try p.feed(Array("data\n\n".utf8)) == [ev("")])
    }

    @Test func emitErrorPropagatesAndStopsParser() throws {
        struct Stop: Error {}
        var p = SSEParser()
        var seen: [SSEParser.Output] = []
        #expect(throws: Stop.self) {
            try Array("data: a\n\ndata: b\n\n".utf8).withUnsafeBytes { raw in
                try p.feed(raw) { seen.append($0); throw Stop() }
            }
        }
        #expect(seen == [ev("a")])
        #expect(throws: Stop.self) { try p.feed(Array("data: c\n\n".utf8)) }
        p.finish()
        #expect(try p.feed(Array("data: d\n\n".utf8)) == [ev("d")])
    }

    // MARK: Large input, tiny chunks

    @Test func hugeEventInOneByteChunksIsLinear() async throws {
        // 2 MiB spread over data lines, and a 1 MiB single line, one byte at a time. A
        // quadratic parser would take minutes here; the benchmark measures the real ratio.
        let line = String(repeating: "z", count: 1000)
        var input = Array(String(repeating: "data: \(line)\n", count: 2048).utf8) + [0x0A]
        input += Array(("data: " + String(repeating: "y", count: 1 << 20) + "\r\n\r\n").utf8)
        var p = SSEParser()
        var sizes: [Int] = []
        for i in input.indices {
            await yieldToOtherTests(every: 1 << 16, i)
            try input[i..<i + 1].withUnsafeBytes { raw in
                try p.feed(raw) { if case .event(let e) = $0 { sizes.append(e.data.utf8.count) } }
            }
        }
        #expect(sizes == [2048 * 1001 - 1, 1 << 20])
    }

    @Test func collectionConvenience() throws {
        var p = SSEParser()
        let bytes = Array("data: a\n\ndata: b\n\n".utf8)
        #expect(try p.feed(bytes[0..<5]) == [])
        #expect(try p.feed(bytes[5...]) == [ev("a"), ev("b")])
        var q = SSEParser()
        // A non-contiguous collection goes through a copy.
        #expect(try q.feed(Array("data: x\n\n".utf8).lazy.map { $0 }) == [ev("x")])
    }
}

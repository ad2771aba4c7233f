import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// The id bound and the default line bound of ``SSEParser/Limits``.
@Suite(.timeLimit(.minutes(1))) struct SSEParserLimitsTests {
    private func ev(_ data: String, id: String) -> SSEParser.Output {
        .event(ServerSentEvent(type: "message", data: data, lastEventID: id))
    }

    @Test("an id up to maxIDLength is kept; a longer one is ignored like one with NUL, and counted")
    func idBound() throws {
        let kept = String(repeating: "k", count: 1024)
        let long = String(repeating: "L", count: 1025)
        let r = parseSSE("id: 7\ndata: a\n\nid: \(kept)\ndata: b\n\nid: \(long)\ndata: c\n\nid: x\0y\ndata: d\n\n")
        #expect(r.outputs == [ev("a", id: "7"), ev("b", id: kept), ev("c", id: kept), ev("d", id: kept)])
        #expect(r.error == nil)
        #expect(r.lastEventID == kept)

        var parser = SSEParser()
        _ = try parser.feed(Array("id: \(long)\ndata: c\n\nid: x\0y\n\nid: \(long)z\n\n".utf8))
        #expect(parser.diagnostics.idsTooLong == 2)
        #expect(parser.diagnostics.idsWithNUL == 1)
        #expect(parser.diagnostics.ignoredIDs == 3)
        #expect(parser.diagnostics.longestIgnoredID == 1026)
        // A reconnection (finish) keeps the counts.
        parser.finish()
        #expect(parser.diagnostics.ignoredIDs == 3)
    }

    @Test("a 1.1 MB id in 64 KiB chunks is ignored, never fatal; the stream goes on with the last good id")
    func hugeID() throws {
        var parser = SSEParser()
        let input = Array("id: 1\ndata: a\n\nid: ".utf8) + [UInt8](repeating: UInt8(ascii: "9"), count: 1_100_000)
            + Array("\ndata: b\n\nid: 3\ndata: c\n\n".utf8)
        var outputs: [SSEParser.Output] = []
        for chunk in Chunking.fixed(64 * 1024).split(input) {
            try chunk.withUnsafeBytes { try parser.feed($0) { outputs.append($0) } }
        }
        #expect(outputs == [ev("a", id: "1"), ev("b", id: "1"), ev("c", id: "3")])
        #expect(parser.diagnostics.idsTooLong == 1)
        #expect(parser.diagnostics.longestIgnoredID == 1_100_000)
    }

    @Test("maxIDLength is configurable")
    func customIDBound() {
        let limits = SSEParser.Limits(maxIDLength: 3)
        #expect(parseSSE("id: abc\ndata: a\n\nid: abcd\ndata: b\n\n", limits: limits).outputs == [ev("a", id: "abc"), ev("b", id: "abc")])
        #expect(parseSSE("id: abcd\ndata: a\n\n", limits: .unlimited).lastEventID == "abcd")
    }

    @Test("by default a line may be as long as an event (plus its `data: `)")
    func lineAsLongAsAnEvent() {
        #expect(SSEParser.Limits.default.maxEventSize == 16 << 20)
        #expect(SSEParser.Limits.default.maxLineLength >= SSEParser.Limits.default.maxEventSize + 6)
        #expect(SSEParser.Limits(maxEventSize: 1000).maxLineLength == 1006)
        #expect(SSEParser.Limits(maxLineLength: 10, maxEventSize: 1000).maxLineLength == 10)
        #expect(SSEParser.Limits(maxEventSize: .max).maxLineLength == .max)
        let limits = SSEParser.Limits(maxEventSize: 10)
        #expect(parseSSE("data: 0123456789\n\n", limits: limits).outputs == [ev("0123456789", id: "")])
        #expect(parseSSE("data: 01234\ndata: 56789\n\n", limits: limits).error == .eventTooLarge)
        #expect(parseSSE("data: 0123456789a\n\n", limits: limits).error == .lineTooLong)
    }

    @Test("a 10 MiB data line in two chunks is one event with the default limits")
    func tenMiBLineInTwoChunks() throws {
        let size = 10 << 20
        let input = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: size) + Array("\n\n".utf8)
        var parser = SSEParser()
        var sizes: [Int] = []
        let half = input.count / 2
        for chunk in [input[..<half], input[half...]] {
            try chunk.withUnsafeBytes { raw in
                try parser.feed(raw, { _ in }) { sizes.append($0.data.count) }
            }
        }
        #expect(sizes == [size])
    }
}

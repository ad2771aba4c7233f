import RealtimeTestSupport
import Testing
@testable import RealtimeCore

/// `SSEParser.feed(_:_:borrowing:)` (data as bytes, for a `String` built later on another
/// thread) against the ordinary `feed`, and `Message`'s deferred text against an eager one.
@Suite(.timeLimit(.minutes(1))) struct SSEParserBorrowingTests {
    /// Feeds `input` split by `chunking`, copying each borrowed event's data into an arena as
    /// the SSE transport does, and returns the outputs as ordinary ones.
    static func borrowingOutputs(_ input: [UInt8], _ chunking: Chunking) throws -> [SSEParser.Output] {
        var parser = SSEParser()
        var deferred: [(SSEDeferredText, String, String)] = []
        var out: [SSEParser.Output] = []
        for chunk in chunking.split(input) {
            // A fresh arena per chunk: like the transport's per-batch arenas.
            let arena = SSEDataArena(capacity: input.count)
            try chunk.withUnsafeBytes { bytes in
                try parser.feed(bytes) { output in
                    out.append(output)
                } borrowing: { e in
                    let offset = try #require(arena.append(e.data))
                    let text = SSEDeferredText(arena: arena, offset: offset, count: e.data.count, isValidUTF8: e.isValidUTF8, isASCII: e.isASCII)
                    deferred.append((text, e.type, e.lastEventID))
                    // A placeholder keeps the order of events and retries.
                    out.append(.event(ServerSentEvent(type: "\u{0}deferred", data: "\(deferred.count - 1)")))
                }
            }
        }
        parser.finish()
        return out.map { output in
            guard case .event(let e) = output, e.type == "\u{0}deferred", let i = Int(e.data) else { return output }
            let (text, type, id) = deferred[i]
            return .event(ServerSentEvent(type: type, data: text.string(), lastEventID: id))
        }
    }

    @Test func randomStreamsMatchTheOrdinaryFeed() throws {
        var rng = SeededGenerator(seed: 77)
        var events = 0
        for round in 0..<300 {
            var input: [UInt8] = []
            if Int.random(in: 0..<4, using: &rng) == 0 { input += [0xEF, 0xBB, 0xBF] }
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                input += SSEParserReferenceTests.fragments[Int.random(in: 0..<SSEParserReferenceTests.fragments.count, using: &rng)]
            }
            var ordinary = SSEParser()
            let expected = try ordinary.feed(input)
            for chunking in [Chunking.whole, .byteByByte, .random(seed: UInt64(round))] {
                #expect(try Self.borrowingOutputs(input, chunking) == expected, "round \(round), \(chunking)")
            }
            events += expected.filter { if case .event = $0 { true } else { false } }.count
        }
        #expect(events > 200)
    }

    @Test func borrowingFeedEnforcesTheLimits() {
        var parser = SSEParser(limits: SSEParser.Limits(maxLineLength: 64, maxEventSize: 100))
        let input = Array(("data: " + String(repeating: "x", count: 60) + "\n").utf8) + Array(("data: " + String(repeating: "y", count: 60) + "\n\n").utf8)
        #expect(throws: RealtimeError.self) {
            try input.withUnsafeBytes { try parser.feed($0, { _ in }, borrowing: { _ in }) }
        }
    }

    @Test func deferredTextBehavesLikeTheEagerMessage() throws {
        let arena = SSEDataArena(capacity: 64)
        let valid = Array("héllo ☃".utf8)
        let invalid: [UInt8] = [0x61, 0xFF, 0x62]
        let o1 = try #require(valid.withUnsafeBytes { arena.append($0) })
        let o2 = try #require(invalid.withUnsafeBytes { arena.append($0) })
        var lazy = Message(
            deferredText: SSEDeferredText(arena: arena, offset: o1, count: valid.count, isValidUTF8: true, isASCII: false),
            type: "t", id: "1")
        let eager = Message.sse(type: "t", data: "héllo ☃", id: "1")
        #expect(lazy == eager)
        #expect(lazy.hashValue == eager.hashValue)
        #expect(lazy.text == "héllo ☃")
        #expect(lazy.payloadByteCount == valid.count)
        #expect(lazy.bytes == valid)
        lazy.materialize()
        #expect(lazy == eager)
        let repaired = Message(
            deferredText: SSEDeferredText(arena: arena, offset: o2, count: invalid.count, isValidUTF8: false, isASCII: false),
            type: "message", id: "")
        #expect(repaired.text == "a\u{FFFD}b")
        #expect(repaired.bytes == Array("a\u{FFFD}b".utf8))
        var replaced = repaired
        replaced.content = .text("new")
        #expect(replaced.text == "new")
    }
}

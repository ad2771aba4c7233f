@testable import RealtimeCore

/// The SSE parser against the WHATWG transcription in ``SSEReference``.
///
/// Input: a chunking seed, a limits choice, flags (strict UTF-8, the id bound), a starting
/// `Last-Event-ID`, then the stream. Invariants:
/// - the stream fed whole, fed in the fuzzer's chunks, and fed through the borrowing API give
///   the same outputs and the same error;
/// - those outputs, the last event ID and the diagnostics are the reference's, and an error
///   (a limit crossed, invalid UTF-8 in strict mode) is thrown exactly when the reference
///   gives one, after exactly the outputs the reference produced before it;
/// - no event's data exceeds `maxEventSize` (counted in scalars: U+FFFD is 3 bytes); no last event ID contains NUL;
/// - a failed parser keeps failing; after `finish()` it parses a new stream as a fresh parser
///   started from its `lastEventID` would (a reconnection).
enum SSEParserFuzz {
    struct Run: Equatable {
        var outputs: [SSEParser.Output] = []
        var error: RealtimeError.Code?
        var lastEventID = ""
        var diagnostics = SSEParser.Diagnostics()
    }

    static func feed(_ parser: inout SSEParser, _ chunks: [ArraySlice<UInt8>], borrowing: Bool = false) -> Run {
        var run = Run()
        do {
            for chunk in chunks {
                try chunk.withUnsafeBytes { raw in
                    if borrowing {
                        try parser.feed(raw, { run.outputs.append($0) }, borrowing: { event in
                            run.outputs.append(.event(ServerSentEvent(
                                type: event.type, data: event.decodedData(), lastEventID: event.lastEventID)))
                        })
                    } else {
                        try parser.feed(raw) { run.outputs.append($0) }
                    }
                }
            }
        } catch let error as RealtimeError {
            run.error = error.code
        } catch {
            require(false, "feed threw a non-RealtimeError: \(error)")
        }
        run.lastEventID = parser.lastEventID
        run.diagnostics = parser.diagnostics
        return run
    }

    /// Default limits, or small ones that the fuzzer crosses all the time.
    static func limits(_ choice: UInt8, _ idChoice: UInt8) -> SSEParser.Limits {
        let small = Int(choice >> 2)
        let maxIDLength = idChoice & 1 == 0 ? 1024 : Int(idChoice >> 1) % 16
        switch choice % 4 {
        case 0: return SSEParser.Limits(maxIDLength: maxIDLength)
        case 1: return SSEParser.Limits(maxLineLength: small, maxEventSize: small * 2, maxIDLength: maxIDLength)
        case 2: return SSEParser.Limits(maxLineLength: 64, maxEventSize: small, maxIDLength: maxIDLength)
        default: return SSEParser.Limits(maxEventSize: small, maxIDLength: maxIDLength)  // line = event + 6
        }
    }

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let seed = input.uint64()
        let choice = input.byte()
        let flags = input.byte()
        let limits = limits(choice, flags >> 1)
        let strict = flags & 1 == 1
        let startID = String(decoding: input.field(max: 16).filter { $0 != 0 }, as: UTF8.self)
        let stream = input.rest()
        func parser(_ id: String = startID) -> SSEParser { SSEParser(limits: limits, lastEventID: id, strictUTF8: strict) }

        var wholeParser = parser()
        let whole = feed(&wholeParser, [stream[...]])
        var chunkedParser = parser()
        let chunks = FuzzChunks.split(stream, seed: seed)
        let chunked = feed(&chunkedParser, chunks)
        require(chunked == whole, "chunking changed the result: \(short(chunked)) vs whole \(short(whole))")
        var borrowingParser = parser()
        let borrowed = feed(&borrowingParser, chunks, borrowing: true)
        require(borrowed == whole, "the borrowing API differs: \(short(borrowed)) vs \(short(whole))")

        let model = SSEReference(stream, lastEventID: startID, limits: limits, strictUTF8: strict)
        require(whole.outputs == model.outputs, "outputs differ from the spec: \(short(whole.outputs)) vs \(short(model.outputs))")
        require(whole.error == model.error, "error \(String(describing: whole.error)) where the spec gives \(String(describing: model.error))")
        require(whole.lastEventID == model.lastEventID, "last event ID \(short(whole.lastEventID)) vs \(short(model.lastEventID))")
        require(whole.diagnostics == model.diagnostics, "diagnostics \(whole.diagnostics) vs \(model.diagnostics)")
        require(whole.lastEventID.utf8.count <= max(limits.maxIDLength, startID.utf8.count) * 3, "an id above the limit was kept")
        for case .event(let event) in whole.outputs {
            // Each byte decodes to at most one scalar (U+FFFD replaces 1-3 invalid bytes).
            let scalars = event.data.unicodeScalars.count
            require(scalars <= limits.maxEventSize, "event of \(scalars) scalars over the \(limits.maxEventSize)-byte limit")
            require(!event.lastEventID.utf8.contains(0), "last event ID with NUL")
        }

        if whole.error != nil {
            // A failed stream stays failed until finish().
            let again = feed(&chunkedParser, [[0x0A, 0x0A][...]])
            require(again.error == whole.error && again.outputs.isEmpty, "a failed parser produced \(short(again))")
        }
        // Reconnection: after finish() the parser behaves as a new one resuming from its ID.
        let resumeID = chunkedParser.lastEventID
        chunkedParser.finish()
        var fresh = parser(resumeID)
        var second = feed(&chunkedParser, chunks)
        let expected = feed(&fresh, [stream[...]])
        // Diagnostics are totals since the parser was made: finish() keeps them.
        second.diagnostics.idsWithNUL -= chunked.diagnostics.idsWithNUL
        second.diagnostics.idsTooLong -= chunked.diagnostics.idsTooLong
        second.diagnostics.longestIgnoredID = expected.diagnostics.longestIgnoredID
        require(second == expected, "a finished parser differs from a fresh one: \(short(second)) vs \(short(expected))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSEParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    SSEParserFuzz.check(data, size)
    return 0
}

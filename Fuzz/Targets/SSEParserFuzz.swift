@testable import RealtimeCore

/// The SSE parser against the WHATWG transcription in ``SSEReference``.
///
/// Input: a chunking seed, a limits choice, a starting `Last-Event-ID`, then the stream.
/// Invariants:
/// - the stream fed whole, fed in the fuzzer's chunks, and fed through the borrowing API give
///   the same outputs and the same error;
/// - those outputs are the reference's, and a limit error is thrown exactly when the reference
///   crosses a limit, after exactly the outputs the reference produced before that line;
/// - no event's data exceeds `maxEventSize` (counted in scalars: U+FFFD is 3 bytes); no last event ID contains NUL;
/// - a failed parser keeps failing; after `finish()` it parses a new stream as a fresh parser
///   started from its `lastEventID` would (a reconnection).
enum SSEParserFuzz {
    struct Run: Equatable {
        var outputs: [SSEParser.Output] = []
        var error: RealtimeError.Code?
        var lastEventID = ""
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
        return run
    }

    static func limits(_ choice: UInt8) -> SSEParser.Limits {
        switch choice % 4 {
        case 0: return .default
        case 1: return SSEParser.Limits(maxLineLength: Int(choice >> 2), maxEventSize: Int(choice >> 2) * 2)
        case 2: return SSEParser.Limits(maxLineLength: 64, maxEventSize: Int(choice >> 2))
        default: return SSEParser.Limits(maxLineLength: Int(choice >> 2), maxEventSize: 1 << 20)
        }
    }

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let seed = input.uint64()
        let limits = limits(input.byte())
        let startID = String(decoding: input.field(max: 16).filter { $0 != 0 }, as: UTF8.self)
        let stream = input.rest()

        var wholeParser = SSEParser(limits: limits, lastEventID: startID)
        let whole = feed(&wholeParser, [stream[...]])
        var chunkedParser = SSEParser(limits: limits, lastEventID: startID)
        let chunks = FuzzChunks.split(stream, seed: seed)
        let chunked = feed(&chunkedParser, chunks)
        require(chunked == whole, "chunking changed the result: \(short(chunked)) vs whole \(short(whole))")
        var borrowingParser = SSEParser(limits: limits, lastEventID: startID)
        let borrowed = feed(&borrowingParser, chunks, borrowing: true)
        require(borrowed == whole, "the borrowing API differs: \(short(borrowed)) vs \(short(whole))")

        let model = SSEReference(stream, lastEventID: startID, limits: limits)
        require(whole.outputs == model.outputs, "outputs differ from the spec: \(short(whole.outputs)) vs \(short(model.outputs))")
        require(whole.error == model.limitError, "error \(String(describing: whole.error)) where the spec gives \(String(describing: model.limitError))")
        if whole.error == nil {
            require(whole.lastEventID == model.lastEventID, "last event ID \(short(whole.lastEventID)) vs \(short(model.lastEventID))")
        }
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
        var fresh = SSEParser(limits: limits, lastEventID: resumeID)
        let second = feed(&chunkedParser, chunks)
        let expected = feed(&fresh, [stream[...]])
        require(second == expected, "a finished parser differs from a fresh one: \(short(second)) vs \(short(expected))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSEParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    SSEParserFuzz.check(data, size)
    return 0
}

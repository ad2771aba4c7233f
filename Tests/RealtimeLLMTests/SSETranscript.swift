import RealtimeCore
import RealtimeLLM
import RealtimeTestSupport
import Testing

/// A golden wire transcript (SSE text as a server sends it) and what a decoder makes of it,
/// checked under every chunking of the bytes: the SSE layer reassembles events (and code
/// points split across reads), so the deltas must not depend on where the reads fell.
enum SSETranscript {
    /// The messages `sse` carries, as the client delivers them.
    static func messages(_ sse: String, chunking: Chunking) throws(RealtimeError) -> [Message] {
        var parser = SSEParser()
        var messages: [Message] = []
        for chunk in chunking.split(Array(sse.utf8)) {
            let outputs: [SSEParser.Output]
            do { outputs = try parser.feed(chunk) } catch { throw error as? RealtimeError ?? RealtimeError(.internal) }
            for case .event(let e) in outputs {
                messages.append(.sse(type: e.type, data: e.data, id: e.lastEventID))
            }
        }
        return messages
    }

    /// Decodes `sse` with a fresh `decoder` under every chunking; expects the same deltas
    /// (and the same thrown error, if any) each time and returns them.
    static func decode<D: LLMStreamDecoder>(
        _ sse: String, with decoder: D, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (deltas: [LLMDelta], error: RealtimeError?) {
        try decodeEach(Chunking.all + [.fixed(1), .fixed(3), .fixed(5)], with: decoder, sourceLocation: sourceLocation) {
            (chunking) throws(RealtimeError) in try messages(sse, chunking: chunking)
        }
    }

    /// Decodes the messages `messages` gives for each chunking with a fresh `decoder`;
    /// expects the same deltas (and the same thrown error, if any) each time and returns them.
    static func decodeEach<D: LLMStreamDecoder>(
        _ chunkings: [Chunking], with decoder: D, sourceLocation: SourceLocation,
        messages: (Chunking) throws(RealtimeError) -> [Message]
    ) throws -> (deltas: [LLMDelta], error: RealtimeError?) {
        var first: (deltas: [LLMDelta], error: RealtimeError?)?
        for chunking in chunkings {
            var d = decoder
            var deltas: [LLMDelta] = []
            var thrown: RealtimeError?
            do throws(RealtimeError) {
                for message in try messages(chunking) { try d.decode(message, into: &deltas) }
            } catch {
                thrown = error
            }
            if let first {
                #expect(deltas == first.deltas, "chunking \(chunking) changed the deltas", sourceLocation: sourceLocation)
                #expect(thrown == first.error, "chunking \(chunking) changed the error", sourceLocation: sourceLocation)
            } else {
                first = (deltas, thrown)
            }
        }
        return first!
    }

    /// Expects every message `(type, data)` to make a fresh copy of `decoder` throw
    /// `protocol_violation` with `detail`.
    static func expectViolations<D: LLMStreamDecoder>(
        _ decoder: D, _ cases: [(type: String, data: String, detail: String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (type, data, detail) in cases {
            var d = decoder
            do {
                _ = try d.decode(.sse(type: type, data: data, id: ""))
                Issue.record("no error for \(data)", sourceLocation: sourceLocation)
            } catch {
                #expect(error.code == .protocolViolation, sourceLocation: sourceLocation)
                #expect(error.detail == detail, "\(data)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Decodes the messages of `sse` with a fresh `decoder`, each message's data mutated at
    /// random (bytes replaced by JSON's structural characters, cut short, duplicated) from
    /// `seed`: whatever the input, a message either decodes or throws `protocol_violation`,
    /// and the deltas go into a transcript without trouble.
    static func expectMutationsAreSafe<D: LLMStreamDecoder>(
        _ sse: String, with decoder: D, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var rng = SeededGenerator(seed: seed)
        var d = decoder
        var transcript = LLMTranscript()
        let alphabet = Array(#"{}[]":,\0123456789 ntrue-é"#.utf8)
        for message in try messages(sse, chunking: .whole) {
            var bytes = message.bytes
            if !bytes.isEmpty, Int.random(in: 0..<3, using: &rng) == 0 {
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = alphabet.randomElement(using: &rng)!
                    case 1: bytes.removeLast(Int.random(in: 0...bytes.count / 2, using: &rng))
                    default: bytes += bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))
                    }
                    if bytes.isEmpty { bytes = [UInt8(ascii: "{")] }
                }
            }
            let mutated = Message.sse(type: message.type ?? "message", data: String(decoding: bytes, as: UTF8.self), id: "")
            do throws(RealtimeError) {
                transcript.apply(contentsOf: try d.decode(mutated))
            } catch {
                #expect(error.code == .protocolViolation, sourceLocation: sourceLocation)
            }
        }
    }

    /// `lines` as SSE: each entry one event (its lines joined by LF), events separated by a
    /// blank line.
    static func sse(_ events: [String]) -> String {
        events.map { $0 + "\n\n" }.joined()
    }
}

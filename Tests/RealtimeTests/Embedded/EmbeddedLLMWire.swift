#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// A reply in a format's real event shapes, written event by event on the embedded server
/// of a client configured for that format (its terminator), which then holds the connection
/// open: what `client.deltas(format:)` delivers, and whether the connection was released.
enum EmbeddedLLMWire {
    /// One SSE event: its `event:` type (nil for none) and its data.
    typealias Event = (type: String?, data: String)

    /// The deltas `decoder` delivers for `events` on a client of `format` (one of
    /// `LLMDeltaSequenceTestsSupport.formats`), and whether the connection was released
    /// once the reply ended though the server held it open.
    static func reply<D: LLMStreamDecoder>(
        _ decoder: D, _ format: String, _ events: [Event]
    ) async throws -> (deltas: [LLMDelta], released: Bool) {
        let t = try EmbeddedLLMDeltaSequenceTests.client(format)
        let collecting = Task { await LLMDeltaSequenceTestsSupport.collect(t.client, decoder) }
        let server = try await t.openedSSE()
        for event in events { server.event(event.data, type: event.type) }
        let deltas = await t.pumping { await collecting.value }
        t.run()
        #expect(t.connectionCount == 1, "the POST is sent once")
        return (deltas, server.ended)
    }

    /// The transcript the deltas make.
    static func transcript(_ deltas: [LLMDelta]) -> LLMTranscript {
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        return transcript
    }

    /// A reasoning delta.
    static func reasoning(_ index: Int, _ kind: LLMReasoningDelta.Kind, _ fragment: String) -> LLMDelta {
        .reasoning(LLMReasoningDelta(index: index, kind: kind, fragment: fragment))
    }
}
#endif

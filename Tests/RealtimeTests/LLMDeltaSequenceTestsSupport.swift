import Realtime
import RealtimeLLM
import RealtimeTestServer
import Testing

/// Collects a client's deltas until the reply ends.
enum LLMDeltaSequenceTestsSupport {
    static func collect<D: LLMStreamDecoder>(_ client: RealtimeClient, _ format: D) async -> [LLMDelta] {
        var deltas: [LLMDelta] = []
        for await delta in client.deltas(format: format) { deltas.append(delta) }
        return deltas
    }

    /// Expects `deltas` to be the fake endpoint's whole text reply in `format` (`openai` or
    /// `anthropic`): every piece, the finish reason, the usage, no error.
    static func expectWholeTextReply(
        _ deltas: [LLMDelta], format: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(deltas.compactMap(\.text) == LLMReplyOptions.pieces, sourceLocation: sourceLocation)
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text(), sourceLocation: sourceLocation)
        #expect(transcript.finishReason == (format == "openai" ? .stop : .endTurn), sourceLocation: sourceLocation)
        #expect(transcript.usage?.inputTokens == 12, sourceLocation: sourceLocation)
        #expect(transcript.usage?.outputTokens == LLMReplyOptions.pieces.count, sourceLocation: sourceLocation)
        #expect(transcript.error == nil, sourceLocation: sourceLocation)
    }
}

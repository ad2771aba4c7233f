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

    /// The fake endpoint's formats, by the name its paths and the tests' arguments use.
    static let formats = ["openai", "anthropic", "responses", "gemini"]

    /// The deltas of `client`'s reply, read with the decoder of `format` (one of ``formats``).
    static func collect(_ client: RealtimeClient, format: String) async -> [LLMDelta] {
        switch format {
        case "anthropic": await collect(client, .anthropic)
        case "responses": await collect(client, .openAIResponses)
        case "gemini": await collect(client, .gemini)
        default: await collect(client, .openAI)
        }
    }

    /// The terminator of `format`'s decoder (Gemini's is its chunk with the finish reason).
    static func terminator(_ format: String) -> StreamTerminator? {
        switch format {
        case "anthropic": AnthropicMessagesDecoder.terminator
        case "responses": OpenAIResponsesDecoder.terminator
        case "gemini": GeminiDecoder.terminator
        default: OpenAIChatDecoder.terminator
        }
    }

    /// The finish reason of a whole text reply in `format`.
    static func finishReason(_ format: String) -> LLMFinishReason {
        ["openai": .stop, "anthropic": .endTurn, "responses": "completed", "gemini": "STOP"][format]!
    }

    /// Expects `deltas` to be the fake endpoint's whole text reply in `format` (one of
    /// ``formats``): every piece, the finish reason, the usage, no error.
    static func expectWholeTextReply(
        _ deltas: [LLMDelta], format: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(deltas.compactMap(\.text) == LLMReplyOptions.pieces, sourceLocation: sourceLocation)
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == LLMReplyOptions(format: .openAI).text(), sourceLocation: sourceLocation)
        #expect(transcript.finishReason == finishReason(format), sourceLocation: sourceLocation)
        #expect(transcript.usage?.inputTokens == 12, sourceLocation: sourceLocation)
        #expect(transcript.usage?.outputTokens == LLMReplyOptions.pieces.count, sourceLocation: sourceLocation)
        #expect(transcript.error == nil, sourceLocation: sourceLocation)
    }
}

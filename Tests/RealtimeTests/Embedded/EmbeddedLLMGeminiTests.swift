#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// The Gemini stream's own chunk shapes through `client.deltas(format: .gemini)` on the
/// embedded stack, as ``GeminiDecoder`` and the LLM streaming guide promise. Gemini sends no
/// `event:` lines and no end marker: the chunk whose candidate 0 has a `finishReason` ends
/// the reply.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMGeminiTests {
    typealias Wire = EmbeddedLLMWire

    /// A `GenerateContentResponse` with candidate `index`'s `parts` and, when given, its
    /// finish reason and more candidate fields.
    static func chunk(_ parts: String, finish: String? = nil, index: Int = 0, extra: String = "", usage: String? = nil) -> Wire.Event {
        let reason = finish.map { #","finishReason":"\#($0)""# } ?? ""
        let usage = usage.map { #","usageMetadata":\#($0)"# } ?? ""
        return (nil, #"{"candidates":[{"content":{"parts":\#(parts),"role":"model"}\#(reason),"index":\#(index)\#(extra)}]\#(usage),"modelVersion":"gemini-2.5-flash"}"#)
    }

    static func reply(_ events: [Wire.Event]) async throws -> (deltas: [LLMDelta], released: Bool) {
        try await Wire.reply(GeminiDecoder.gemini, "gemini", events)
    }

    /// Thought parts are one reasoning block of kind `summary`, the part's
    /// `thoughtSignature` that block's signature; `thoughtsTokenCount` is the reasoning
    /// tokens, apart from `candidatesTokenCount`.
    @Test func thoughtPartsAreASummaryWithItsSignature() async throws {
        let usage = #"{"promptTokenCount":8,"candidatesTokenCount":3,"thoughtsTokenCount":20,"totalTokenCount":31}"#
        let (deltas, released) = try await Self.reply([
            Self.chunk(#"[{"text":"**Planning**","thought":true}]"#),
            Self.chunk(#"[{"text":" the reply.","thought":true}]"#),
            Self.chunk(#"[{"text":"Hello!","thoughtSignature":"CiQB0e2Kb"}]"#, finish: "STOP", usage: usage),
        ])
        #expect(deltas == [
            Wire.reasoning(0, .summary, "**Planning**"), Wire.reasoning(0, .summary, " the reply."), .text("Hello!"),
            Wire.reasoning(0, .signature, "CiQB0e2Kb"), .finish("STOP"),
            .usage(LLMUsage(inputTokens: 8, outputTokens: 3, totalTokens: 31, reasoningTokens: 20)),
        ])
        #expect(Wire.transcript(deltas).reasoning == [LLMReasoning(index: 0, summary: "**Planning** the reply.", signature: "CiQB0e2Kb")])
        #expect(released)
    }

    /// Every `finishReason` ends the reply on a held connection, kept as sent, with the
    /// chunk's usage after it, though the finishing candidate has no `content` (as a
    /// `SAFETY` block sends it); a `SAFETY` finish is no refusal and no error.
    @Test(arguments: ["MAX_TOKENS", "SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL"])
    func everyFinishReasonEndsTheReply(reason: String) async throws {
        let ratings = #"[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]"#
        let usage = #"{"promptTokenCount":4,"candidatesTokenCount":1,"totalTokenCount":5}"#
        let (deltas, released) = try await Self.reply([
            Self.chunk(#"[{"text":"Once"}]"#),
            (nil, #"{"candidates":[{"finishReason":"\#(reason)","index":0,"safetyRatings":\#(ratings)}],"usageMetadata":\#(usage)}"#),
        ])
        #expect(deltas == [.text("Once"), .finish(LLMFinishReason(reason)), .usage(LLMUsage(inputTokens: 4, outputTokens: 1, totalTokens: 5))])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.refusal.isEmpty && transcript.error == nil)
        #expect(released)
    }

    /// A blocked prompt (`promptFeedback.blockReason`, no candidates) ends the reply with
    /// `stream_error` naming the reason, and releases the held connection though no
    /// candidate finished.
    @Test func aBlockedPromptIsAStreamError() async throws {
        let blocked = #"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7}}"#
        let (deltas, released) = try await Self.reply([(nil, blocked)])
        guard case .error(let failure) = deltas.last, deltas.count == 1 else { Issue.record("expected one error: \(deltas)"); return }
        #expect(failure.code == .streamError && failure.detail == "gemini SAFETY")
        #expect(failure.bodyExcerpt == blocked, "the body excerpt holds the event")
        #expect(released)
    }

    /// Citation sources and grounding chunks are citations: `citationSource` with its
    /// `uri`, and the grounding chunk's kind (`web`) with its `uri` and `title`.
    @Test func citationAndGroundingMetadataAreCitations() async throws {
        let source = #"{"endIndex":12,"startIndex":0,"uri":"https://example.com/poem"}"#
        let web = #"{"web":{"title":"example.com","uri":"https://example.com/sky"}}"#
        let metadata = #","citationMetadata":{"citationSources":[\#(source)]},"groundingMetadata":{"groundingChunks":[\#(web)]}"#
        let (deltas, _) = try await Self.reply([Self.chunk(#"[{"text":"Roses are red"}]"#, finish: "STOP", extra: metadata)])
        #expect(deltas == [
            .text("Roses are red"), .finish("STOP"),
            .citation(LLMCitation(type: "citationSource", url: "https://example.com/poem", json: source)),
            .citation(LLMCitation(type: "web", url: "https://example.com/sky", title: "example.com", json: web)),
        ])
    }

    /// Each `functionCall` part is a whole call (its `id`, `name` and `args` as JSON text)
    /// ended right after it.
    @Test func eachFunctionCallIsWholeAndEndedAtOnce() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"[{"functionCall":{"id":"fc1","name":"weather","args":{"city":"Oslo"}}},{"functionCall":{"name":"time","args":{}}}]"#, finish: "STOP"),
        ])
        #expect(deltas == [
            .toolCall(LLMToolCallDelta(index: 0, id: "fc1", name: "weather", argumentsFragment: #"{"city":"Oslo"}"#)), .toolCallEnd(index: 0),
            .toolCall(LLMToolCallDelta(index: 1, name: "time", argumentsFragment: "{}")), .toolCallEnd(index: 1), .finish("STOP"),
        ])
    }

    /// Only candidate 0 is followed: another candidate's parts are skipped, and its finish
    /// does not end the reply.
    @Test func onlyTheFirstCandidateIsFollowed() async throws {
        let (deltas, released) = try await Self.reply([
            Self.chunk(#"[{"text":"Zero"}]"#),
            Self.chunk(#"[{"text":"One"}]"#, finish: "STOP", index: 1),
            Self.chunk(#"[{"text":" done"}]"#, finish: "STOP"),
        ])
        #expect(deltas == [.text("Zero"), .text(" done"), .finish("STOP")])
        #expect(released)
    }

    /// Gemini's chunks as the API writes them, with spaces after colons and commas: the
    /// chunk whose candidate has a `finishReason` still ends the reply on a held connection.
    @Test func spacedChunksAsTheAPIWritesThemEndAtTheFinish() async throws {
        let (deltas, released) = try await Self.reply([
            (nil, #"{"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}, "index": 0}], "modelVersion": "gemini-2.5-flash"}"#),
            (nil, #"{"candidates": [{"content": {"parts": [{"text": "!"}], "role": "model"}, "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 2, "candidatesTokenCount": 2, "totalTokenCount": 4}}"#),
        ])
        #expect(deltas == [.text("Hi"), .text("!"), .finish("STOP"), .usage(LLMUsage(inputTokens: 2, outputTokens: 2, totalTokens: 4))])
        #expect(released)
    }
    /// `usageMetadata` comes with every chunk, each a running total (early chunks without
    /// `candidatesTokenCount`): the transcript holds the last one, nothing is summed.
    @Test func usageInEveryChunkIsARunningTotal() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"[{"text":"Hel"}]"#, usage: #"{"promptTokenCount":8,"totalTokenCount":8,"thoughtsTokenCount":5}"#),
            Self.chunk(#"[{"text":"lo"}]"#, usage: #"{"promptTokenCount":8,"candidatesTokenCount":1,"totalTokenCount":14,"thoughtsTokenCount":5}"#),
            Self.chunk(#"[{"text":"!"}]"#, finish: "STOP",
                usage: #"{"promptTokenCount":8,"candidatesTokenCount":2,"totalTokenCount":15,"thoughtsTokenCount":5,"promptTokensDetails":[{"modality":"TEXT","tokenCount":8}]}"#),
        ])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.text == "Hello!")
        #expect(transcript.usage == LLMUsage(inputTokens: 8, outputTokens: 2, totalTokens: 15, reasoningTokens: 5))
    }
}
#endif

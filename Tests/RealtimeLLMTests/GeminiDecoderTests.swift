import RealtimeCore
import RealtimeLLM
import Testing

/// The golden sequences below follow the Gemini API reference for
/// `models.streamGenerateContent` with `alt=sse` (each event a `GenerateContentResponse`:
/// `candidates[].content.parts[]`, `finishReason`, `citationMetadata`, `groundingMetadata`,
/// `usageMetadata`, `promptFeedback`), the thinking guide's streamed thought summaries
/// (`thought: true`, `thoughtsTokenCount`), the function calling guide's `functionCall`
/// part with its `thoughtSignature`, and Google's error object. No Gemini server runs here:
/// these documented sequences are the third-party reference the decoder is checked against.
@Suite(.timeLimit(.minutes(1))) struct GeminiDecoderTests {
    static func chunk(_ candidate: String, usage: String = #"{"promptTokenCount":10,"totalTokenCount":10}"#) -> String {
        #"data: {"candidates": [\#(candidate)],"usageMetadata": \#(usage),"modelVersion": "gemini-2.5-flash","responseId": "mW8nabqdGNLk-8YP5qTHqAk"}"#
    }

    static func parts(_ parts: String, finish: String? = nil) -> String {
        #"{"content": {"parts": [\#(parts)],"role": "model"},\#(finish.map { #""finishReason": "\#($0)","# } ?? "")"index": 0}"#
    }

    /// Thought summaries, then the answer, then the finish with the usage.
    static let thinkingReply = SSETranscript.sse([
        chunk(parts(#"{"text": "**Analyzing the sky**\n\nRayleigh","thought": true}"#)),
        chunk(parts(#"{"text": " scattering.","thought": true}"#)),
        chunk(parts(#"{"text": "The sky is "}"#)),
        chunk(parts(#"{"text": "blue — 🌤."}"#), usage: #"{"promptTokenCount":10,"candidatesTokenCount":6,"totalTokenCount":118,"thoughtsTokenCount":102,"cachedContentTokenCount":4}"#),
        chunk(parts(#"{"text": ""}"#, finish: "STOP"), usage: #"{"promptTokenCount":10,"candidatesTokenCount":8,"totalTokenCount":120,"thoughtsTokenCount":102,"cachedContentTokenCount":4}"#),
    ])

    @Test func thinkingReplyGolden() throws {
        let (deltas, error) = try SSETranscript.decode(Self.thinkingReply, with: .gemini)
        #expect(error == nil)
        let start = LLMUsage(inputTokens: 10, totalTokens: 10)
        let end = LLMUsage(inputTokens: 10, outputTokens: 8, totalTokens: 120, reasoningTokens: 102, cachedInputTokens: 4)
        #expect(deltas == [
            .reasoning(LLMReasoningDelta(index: 0, kind: .summary, fragment: "**Analyzing the sky**\n\nRayleigh")), .usage(start),
            .reasoning(LLMReasoningDelta(index: 0, kind: .summary, fragment: " scattering.")), .usage(start),
            .text("The sky is "), .usage(start),
            .text("blue — 🌤."), .usage(LLMUsage(inputTokens: 10, outputTokens: 6, totalTokens: 118, reasoningTokens: 102, cachedInputTokens: 4)),
            .finish("STOP"), .usage(end),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "The sky is blue — 🌤.")
        #expect(transcript.reasoning == [LLMReasoning(index: 0, summary: "**Analyzing the sky**\n\nRayleigh scattering.")])
        #expect(transcript.usage == end)
        #expect(transcript.isFinished)
    }

    /// Function calls arrive whole, each with its args as JSON text; the signature goes to
    /// the reasoning block before it; a thought after the calls is a new block.
    @Test func functionCallsAreWholeAndSignaturesFollowTheirThoughts() throws {
        let sse = SSETranscript.sse([
            Self.chunk(Self.parts(#"{"text": "I need the weather.","thought": true}"#)),
            Self.chunk(Self.parts(#"{"functionCall": {"name": "get_current_weather","args": {"location": "Boston, MA","days": [1, 2.5],"metric": true,"note": null}},"thoughtSignature": "CiQBcsjafE5HcWXz"}, {"functionCall": {"id": "call_2","name": "get_time","args": {}}}"#)),
            Self.chunk(Self.parts(#"{"text": "Then the time.","thought": true}, {"text": "Done","thoughtSignature": "Eh0K"}"#, finish: "STOP")),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .gemini)
        #expect(error == nil)
        let calls = deltas.filter { if case .usage = $0 { false } else { true } }
        #expect(calls == [
            .reasoning(LLMReasoningDelta(index: 0, kind: .summary, fragment: "I need the weather.")),
            .toolCall(LLMToolCallDelta(index: 0, name: "get_current_weather", argumentsFragment: #"{"days":[1,2.5],"location":"Boston, MA","metric":true,"note":null}"#)),
            .toolCallEnd(index: 0),
            .reasoning(LLMReasoningDelta(index: 0, kind: .signature, fragment: "CiQBcsjafE5HcWXz")),
            .toolCall(LLMToolCallDelta(index: 1, id: "call_2", name: "get_time", argumentsFragment: "{}")),
            .toolCallEnd(index: 1),
            .reasoning(LLMReasoningDelta(index: 1, kind: .summary, fragment: "Then the time.")),
            .text("Done"),
            .reasoning(LLMReasoningDelta(index: 1, kind: .signature, fragment: "Eh0K")),
            .finish("STOP"),
        ])
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed.map(\.name) == ["get_current_weather", "get_time"])
        #expect(transcript.reasoning == [
            LLMReasoning(index: 0, summary: "I need the weather.", signature: "CiQBcsjafE5HcWXz"),
            LLMReasoning(index: 1, summary: "Then the time.", signature: "Eh0K"),
        ])
    }

    /// A signature without a thought before it is a reasoning block of its own.
    @Test func aSignatureAloneIsItsOwnBlock() throws {
        var d = GeminiDecoder()
        let deltas = try d.decode(.sse(type: "message", data: #"{"candidates":[{"content":{"parts":[{"text":"1+1 equals 2.","thoughtSignature":"EjQKMgEM"}],"role":"model"},"finishReason":"STOP","index":0}]}"#, id: ""))
        #expect(deltas == [.text("1+1 equals 2."), .reasoning(LLMReasoningDelta(index: 0, kind: .signature, fragment: "EjQKMgEM")), .finish("STOP")])
    }

    @Test(arguments: ["SAFETY", "RECITATION", "MAX_TOKENS", "MALFORMED_FUNCTION_CALL"]) func finishReasonsAreKeptAsSent(reason: String) throws {
        var d = GeminiDecoder()
        let data = #"{"candidates":[{"finishReason":"\#(reason)","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_HATE_SPEECH","probability":"HIGH","blocked":true}]}]}"#
        #expect(try d.decode(.sse(type: "message", data: data, id: "")) == [.finish(LLMFinishReason(reason))])
    }

    /// `citationMetadata.citationSources` (a recitation) and `groundingMetadata.groundingChunks`
    /// (Google Search grounding) are citations.
    @Test func citationAndGroundingMetadataAreCitations() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"content": {"parts": [{"text": "Spain won Euro 2024."}],"role": "model"},"finishReason": "STOP","citationMetadata": {"citationSources": [{"startIndex": 1,"endIndex": 20,"uri": "https://example.com/euro","license": ""}]},"groundingMetadata": {"webSearchQueries": ["who won euro 2024"],"groundingChunks": [{"web": {"uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9","title": "uefa.com"}}],"groundingSupports": [{"segment": {"startIndex": 0,"endIndex": 20,"text": "Spain won Euro 2024."},"groundingChunkIndices": [0]}]},"index": 0}"#),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .gemini)
        #expect(error == nil)
        #expect(deltas.prefix(4) == [
            .text("Spain won Euro 2024."), .finish("STOP"),
            .citation(LLMCitation(
                type: "citationSource", url: "https://example.com/euro",
                json: #"{"endIndex":20,"license":"","startIndex":1,"uri":"https://example.com/euro"}"#)),
            .citation(LLMCitation(
                type: "web", url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9", title: "uefa.com",
                json: #"{"web":{"title":"uefa.com","uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbF9"}}"#)),
        ])
    }

    @Test func blockedPromptsAndErrorObjectsAreStreamErrors() throws {
        var d = GeminiDecoder()
        let blocked = #"{"promptFeedback": {"blockReason": "SAFETY","safetyRatings": [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT","probability": "HIGH"}]},"usageMetadata": {"promptTokenCount": 8,"totalTokenCount": 8},"modelVersion": "gemini-2.5-flash"}"#
        let overloaded = #"{"error": {"code": 503,"message": "The model is overloaded. Please try again later.","status": "UNAVAILABLE"}}"#
        for (data, detail) in [(blocked, "gemini SAFETY"), (overloaded, "gemini UNAVAILABLE"), (#"{"error":{"code":500}}"#, "gemini 500")] {
            let deltas = try d.decode(.sse(type: "message", data: data, id: ""))
            guard case .error(let error)? = deltas.first, deltas.count == 1 else {
                Issue.record("\(deltas)")
                continue
            }
            #expect(error.code == .streamError)
            #expect(error.detail == detail)
            #expect(error.bodyExcerpt == data)
        }
    }

    /// Parts of kinds the decoder does not decode are named and skipped; so is a chunk
    /// without any known member. Other candidates are not followed.
    @Test func otherPartsChunksAndCandidatesAreSkipped() throws {
        var d = GeminiDecoder()
        #expect(try d.decode(.sse(type: "message", data: #"{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"print(1)"}},{"inlineData":{"mimeType":"image/png","data":"iVBO"},"partMetadata":{}}]},"index":0}]}"#, id: "")) == [
            .unrecognized("executableCode"), .unrecognized("inlineData"),
        ])
        #expect(try d.decode(.sse(type: "message", data: #"{"modelVersion":"gemini-2.5-flash"}"#, id: "")) == [.unrecognized("")])
        #expect(try d.decode(.sse(type: "message", data: #"{"candidates":[{"content":{"parts":[{"text":"other"}]},"index":1,"finishReason":"STOP"}]}"#, id: "")).isEmpty)
    }

    @Test func malformedDataThrowsProtocolViolation() throws {
        SSETranscript.expectViolations(GeminiDecoder(), [
            ("message", "{", "gemini: the event's data is not valid JSON"),
            ("message", #"{"candidates":{"x":1}}"#, "gemini: 'candidates' has the wrong type"),
            ("message", #"{"candidates":[{"content":{"parts":[{"text":7}]}}]}"#, "gemini: 'candidates[0].content.parts[0].text' has the wrong type"),
            ("message", #"{"candidates":[{"finishReason":1}]}"#, "gemini: 'candidates[0].finishReason' has the wrong type"),
        ])
    }

    /// The terminator is the chunk in which candidate 0 carries a `finishReason` string,
    /// delivered so the decoder reads the finish and the usage beside it. A `finishReason`
    /// of another candidate, a null one, or the words inside a text or a nested object do
    /// not end the reply.
    @Test func theChunkWithTheFinishReasonIsTheDeliveredTerminator() throws {
        let terminator = try #require(GeminiDecoder.terminator)
        #expect(terminator.delivered)
        func data(_ text: String) -> Message { .sse(type: "message", data: text, id: "") }
        let last = try #require(Self.thinkingReply.split(separator: "\n").last.map { String($0.dropFirst(6)) })
        for ending in [last, #"{"candidates":[{"finishReason":"MAX_TOKENS"}]}"#, #"{ "candidates" : [ { "index" : 1 }, { "index" : 0 , "finishReason" : "SAFETY" } ] }"#] {
            #expect(terminator.matches(data(ending)), "\(ending)")
        }
        for going in [
            String(Self.chunk(Self.parts(#"{"text": "the \"finishReason\": \"STOP\""}"#)).dropFirst(6)),
            #"{"candidates":[{"finishReason":null,"index":0}]}"#,
            #"{"candidates":[{"finishReason":"STOP","index":1}]}"#,
            #"{"candidates":[{"content":{"finishReason":"STOP"}}],"usageMetadata":{"finishReason":"STOP"}}"#,
            #"{"finishReason":"STOP"}"#, "[DONE]", "",
        ] {
            #expect(!terminator.matches(data(going)), "\(going)")
        }
    }

    /// Golden sequences with mutated data never crash the decoder: each message decodes or
    /// throws `protocol_violation`.
    @Test(arguments: 1...40) func mutatedEventsNeverCrash(seed: UInt64) throws {
        for sse in [Self.thinkingReply] {
            try SSETranscript.expectMutationsAreSafe(sse, with: GeminiDecoder(), seed: seed)
        }
    }
}

extension GeminiDecoder {
    /// The parts of a `GenerateContentResponse` (or an error object) the decoder reads
    /// (Gemini API reference, `models.streamGenerateContent`).
    struct Chunk: Decodable {
        var candidates: [Candidate]?
        var promptFeedback: PromptFeedback?
        var usageMetadata: UsageMetadata?
        var error: ErrorObject?
    }

    struct Candidate: Decodable {
        var index: Int?
        var content: Content?
        var finishReason: String?
        var citationMetadata: CitationMetadata?
        var groundingMetadata: GroundingMetadata?
    }

    struct Content: Decodable {
        var parts: [Part]?
    }

    /// One part: text (a thought summary when `thought` is true), a function call, or a kind
    /// the decoder names and skips (`inlineData`, `executableCode`, …).
    struct Part: Decodable {
        var text: String?
        var thought: Bool?
        var thoughtSignature: String?
        var functionCall: FunctionCall?
        /// The part's kind when it is none of the above: its data member's name.
        var otherKind: String?

        enum CodingKeys: String, CodingKey { case text, thought, thoughtSignature, functionCall }

        /// Members that describe a part rather than hold its data.
        static let metadata: Set<String> = ["thought", "thoughtSignature", "videoMetadata", "partMetadata", "mediaResolution"]

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            text = try c.decodeIfPresent(String.self, forKey: .text)
            thought = try c.decodeIfPresent(Bool.self, forKey: .thought)
            thoughtSignature = try c.decodeIfPresent(String.self, forKey: .thoughtSignature)
            functionCall = try c.decodeIfPresent(FunctionCall.self, forKey: .functionCall)
            guard text == nil, functionCall == nil else { return }
            let all = try decoder.container(keyedBy: LLMWireValue.Key.self)
            otherKind = all.allKeys.map(\.stringValue).filter { !Self.metadata.contains($0) }.min()
        }
    }

    struct FunctionCall: Decodable {
        var id: String?
        var name: String?
        var args: LLMWireValue?
    }

    struct CitationMetadata: Decodable {
        var citationSources: [LLMWireValue]?
    }

    struct GroundingMetadata: Decodable {
        var groundingChunks: [LLMWireValue]?
    }

    struct PromptFeedback: Decodable {
        var blockReason: String?
    }

    struct UsageMetadata: Decodable {
        var promptTokenCount: Int?
        var candidatesTokenCount: Int?
        var totalTokenCount: Int?
        var thoughtsTokenCount: Int?
        var cachedContentTokenCount: Int?

        var counts: LLMUsage {
            LLMUsage(
                inputTokens: promptTokenCount, outputTokens: candidatesTokenCount, totalTokens: totalTokenCount,
                reasoningTokens: thoughtsTokenCount, cachedInputTokens: cachedContentTokenCount)
        }
    }

    /// Google's error object, `{"error": {"code": 429, "message": …, "status":
    /// "RESOURCE_EXHAUSTED"}}`, read leniently: any value under `error` is an error.
    struct ErrorObject: Decodable {
        var status: String?
        var code: Int?

        enum CodingKeys: String, CodingKey { case status, code }

        init(from decoder: any Decoder) throws {
            guard let c = try? decoder.container(keyedBy: CodingKeys.self) else { return }
            status = try? c.decodeIfPresent(String.self, forKey: .status)
            code = try? c.decodeIfPresent(Int.self, forKey: .code)
        }
    }
}

extension OpenAIChatDecoder {
    /// The parts of a `chat.completion.chunk` (or an error object) the decoder reads.
    struct Chunk: Decodable {
        /// `chat.completion.chunk`, or what an event the decoder skips calls itself.
        var object: LLMWireJSON.LenientString?
        var choices: [Choice]?
        var usage: Usage?
        var error: ErrorObject?

        struct Choice: Decodable {
            var index: Int?
            var delta: Delta?
            var finishReason: String?

            enum CodingKeys: String, CodingKey {
                case index, delta
                case finishReason = "finish_reason"
            }
        }

        struct Delta: Decodable {
            var content: String?
            var refusal: String?
            /// DeepSeek's and older vLLM's name for the reasoning text; servers differ in
            /// the field's type, so it is read leniently.
            var reasoningContent: LLMWireJSON.LenientString?
            /// OpenRouter's, Ollama's and newer vLLM's name for the same.
            var reasoning: LLMWireJSON.LenientString?
            /// Web search citations: an array of `{"type": "url_citation", "url_citation": {...}}`.
            var annotations: LLMWireValue?
            var toolCalls: [ToolCall]?
            /// The deprecated `functions` request's one call: a name, then argument fragments.
            var functionCall: Function?
            /// The reply's audio, with `modalities: ["text", "audio"]`.
            var audio: Audio?

            enum CodingKeys: String, CodingKey {
                case content, refusal, reasoning, annotations, audio
                case reasoningContent = "reasoning_content"
                case toolCalls = "tool_calls"
                case functionCall = "function_call"
            }
        }

        /// `{"id": …, "transcript": …, "data": …, "expires_at": …}`, each fragment with some
        /// of the members.
        struct Audio: Decodable {
            var id: String?
            var transcript: String?
            /// Base64 audio in the request's `audio.format`.
            var data: String?
        }

        struct ToolCall: Decodable {
            var index: Int?
            var id: String?
            var function: Function?
        }

        struct Function: Decodable {
            var name: String?
            var arguments: String?
        }

        struct Usage: Decodable {
            var promptTokens: Int?
            var completionTokens: Int?
            var totalTokens: Int?
            var promptTokensDetails: LLMWireJSON.TokenDetails?
            var completionTokensDetails: LLMWireJSON.TokenDetails?

            enum CodingKeys: String, CodingKey {
                case promptTokens = "prompt_tokens"
                case completionTokens = "completion_tokens"
                case totalTokens = "total_tokens"
                case promptTokensDetails = "prompt_tokens_details"
                case completionTokensDetails = "completion_tokens_details"
            }

            var counts: LLMUsage {
                LLMUsage(
                    inputTokens: promptTokens, outputTokens: completionTokens, totalTokens: totalTokens,
                    reasoningTokens: completionTokensDetails?.reasoningTokens,
                    cachedInputTokens: promptTokensDetails?.cachedTokens)
            }
        }

        /// `{"error": {"message": …, "type": …, "code": …}}`; `code` is a string or a number
        /// depending on the server, and some servers send `{"error": "text"}`, so it is read
        /// leniently: any value under `error` is an error.
        struct ErrorObject: Decodable {
            var type: String?
            var code: String?

            enum CodingKeys: String, CodingKey { case type, code }

            init(from decoder: any Decoder) throws {
                guard let c = try? decoder.container(keyedBy: CodingKeys.self) else { return }
                type = try? c.decodeIfPresent(String.self, forKey: .type)
                code = (try? c.decodeIfPresent(String.self, forKey: .code))
                    ?? (try? c.decodeIfPresent(Int.self, forKey: .code)).flatMap { $0.map(String.init) }
            }
        }
    }
}

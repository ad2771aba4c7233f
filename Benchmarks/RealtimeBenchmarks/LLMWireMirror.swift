/// Plain `Decodable` mirrors of the whole wire objects (every field the APIs send in these
/// chunks), decoded with a bare `JSONDecoder`: the baseline the `llm` decode benchmarks
/// compare the SDK's decoders with.
enum LLMWireMirror {
    struct OpenAIChunk: Decodable {
        var id: String?
        var object: String?
        var created: Int?
        var model: String?
        var system_fingerprint: String?
        var choices: [Choice]?
        var usage: Usage?

        struct Choice: Decodable {
            var index: Int
            var delta: Delta
            var finish_reason: String?
        }

        struct Delta: Decodable {
            var role: String?
            var content: String?
            var refusal: String?
            var tool_calls: [ToolCall]?
        }

        struct ToolCall: Decodable {
            var index: Int
            var id: String?
            var type: String?
            var function: Function?
        }

        struct Function: Decodable {
            var name: String?
            var arguments: String?
        }

        struct Usage: Decodable {
            var prompt_tokens: Int
            var completion_tokens: Int
            var total_tokens: Int
        }
    }

    struct AnthropicEvent: Decodable {
        var type: String
        var index: Int?
        var message: MessageObject?
        var content_block: Block?
        var delta: Delta?
        var usage: Usage?

        struct MessageObject: Decodable {
            var id: String
            var type: String
            var role: String
            var model: String
            var stop_reason: String?
            var usage: Usage
        }

        struct Block: Decodable {
            var type: String
            var id: String?
            var name: String?
            var text: String?
        }

        struct Delta: Decodable {
            var type: String?
            var text: String?
            var partial_json: String?
            var stop_reason: String?
        }

        struct Usage: Decodable {
            var input_tokens: Int?
            var output_tokens: Int?
        }
    }
}

extension LLMWireMirror {
    /// A Responses API stream event, every field the events of these replies carry.
    struct ResponsesEvent: Decodable {
        var type: String
        var sequence_number: Int
        var item_id: String?
        var output_index: Int?
        var content_index: Int?
        var summary_index: Int?
        var delta: String?
        var text: String?
        var arguments: String?
        var logprobs: [Double]?
        var item: Item?
        var part: Part?
        var response: ResponseObject?

        struct Item: Decodable {
            var id: String?
            var type: String
            var status: String?
            var role: String?
            var call_id: String?
            var name: String?
            var arguments: String?
            var content: [Part]?
            var summary: [Part]?
        }

        struct Part: Decodable {
            var type: String
            var text: String?
            var annotations: [String]?
        }

        struct ResponseObject: Decodable {
            var id: String
            var object: String
            var created_at: Int
            var status: String
            var model: String
            var usage: Usage?
        }

        struct Usage: Decodable {
            var input_tokens: Int
            var output_tokens: Int
            var total_tokens: Int
            var input_tokens_details: Details?
            var output_tokens_details: Details?
        }

        struct Details: Decodable {
            var cached_tokens: Int?
            var reasoning_tokens: Int?
        }
    }

    /// An OpenAI Realtime server event, every field the events of this session carry.
    struct RealtimeEvent: Decodable {
        var type: String
        var event_id: String
        var response_id: String?
        var item_id: String?
        var call_id: String?
        var output_index: Int?
        var content_index: Int?
        var delta: String?
        var text: String?
        var name: String?
        var arguments: String?
        var item: Item?
        var part: Part?
        var response: Response?

        struct Item: Decodable {
            var id: String
            var object: String?
            var type: String
            var status: String?
            var role: String?
            var call_id: String?
            var name: String?
            var arguments: String?
            var content: [Part]?
        }

        struct Part: Decodable {
            var type: String
            var text: String?
        }

        struct Response: Decodable {
            var id: String
            var object: String
            var status: String
            var output: [Item]
            var usage: Usage?
        }

        struct Usage: Decodable {
            var total_tokens: Int
            var input_tokens: Int
            var output_tokens: Int
            var input_token_details: Details?
            var output_token_details: Details?
        }

        struct Details: Decodable {
            var text_tokens: Int?
            var audio_tokens: Int?
            var cached_tokens: Int?
        }
    }

    /// A Gemini `GenerateContentResponse` chunk, every field these chunks carry.
    struct GeminiChunk: Decodable {
        var candidates: [Candidate]?
        var usageMetadata: Usage?
        var modelVersion: String?
        var responseId: String?

        struct Candidate: Decodable {
            var content: Content?
            var finishReason: String?
            var index: Int?
        }

        struct Content: Decodable {
            var parts: [Part]?
            var role: String?
        }

        struct Part: Decodable {
            var text: String?
            var thought: Bool?
            var thoughtSignature: String?
            var functionCall: FunctionCall?
        }

        struct FunctionCall: Decodable {
            var name: String
            var args: [String: String]
        }

        struct Usage: Decodable {
            var promptTokenCount: Int?
            var candidatesTokenCount: Int?
            var totalTokenCount: Int?
            var thoughtsTokenCount: Int?
        }
    }
}

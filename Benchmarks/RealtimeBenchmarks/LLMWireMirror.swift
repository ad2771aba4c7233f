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

extension AnthropicMessagesDecoder {
    /// The parts of a Messages stream event the decoder reads.
    struct Event: Decodable {
        var type: String?
        var index: Int?
        var message: MessageObject?
        var contentBlock: ContentBlock?
        var delta: Delta?
        var usage: Usage?
        var error: ErrorObject?

        enum CodingKeys: String, CodingKey {
            case type, index, message, delta, usage, error
            case contentBlock = "content_block"
        }

        /// The event types the decoder reads fields of (``AnthropicMessagesDecoder``).
        static let known: Set<String> = [
            "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta",
            "message_stop", "ping", "error",
        ]

        /// Reads the fields only for a known type (or none in the data): an event type added
        /// after this version may give the same keys another shape, and is skipped whole.
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .type)?.value
            if let type, !Self.known.contains(type) { return }
            index = try c.decodeIfPresent(Int.self, forKey: .index)
            message = try c.decodeIfPresent(MessageObject.self, forKey: .message)
            contentBlock = try c.decodeIfPresent(ContentBlock.self, forKey: .contentBlock)
            delta = try c.decodeIfPresent(Delta.self, forKey: .delta)
            usage = try c.decodeIfPresent(Usage.self, forKey: .usage)
            error = try c.decodeIfPresent(ErrorObject.self, forKey: .error)
        }
    }

    struct MessageObject: Decodable {
        var usage: Usage?
    }

    struct ContentBlock: Decodable {
        var type: String
        var id: String?
        var name: String?
        var text: String?
        /// A `thinking` block's initial text and signature (empty at the start of a stream).
        var thinking: String?
        var signature: String?
        /// A `redacted_thinking` block's encrypted reasoning.
        var data: String?
        /// How many keys `input` has (a `tool_use` block starts with `{}`), nil without one.
        var inputKeyCount: Int?

        enum CodingKeys: String, CodingKey { case type, id, name, text, input, thinking, signature, data }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decode(String.self, forKey: .type)
            id = try c.decodeIfPresent(String.self, forKey: .id)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            // Only the fields of the block types decoded: another type may use the same
            // names for other shapes.
            switch type {
            case "tool_use":
                if c.contains(.input), let input = try? c.nestedContainer(keyedBy: AnyKey.self, forKey: .input) {
                    inputKeyCount = input.allKeys.count
                }
            case "text":
                text = try c.decodeIfPresent(String.self, forKey: .text)
            case "thinking":
                thinking = try c.decodeIfPresent(String.self, forKey: .thinking)
                signature = try c.decodeIfPresent(String.self, forKey: .signature)
            case "redacted_thinking":
                data = try c.decodeIfPresent(String.self, forKey: .data)
            default:
                break
            }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Delta: Decodable {
        var type: String?
        var text: String?
        var partialJSON: String?
        var thinking: String?
        var signature: String?
        var citation: LLMWireValue?
        var stopReason: String?

        enum CodingKeys: String, CodingKey {
            case type, text, thinking, signature, citation
            case partialJSON = "partial_json"
            case stopReason = "stop_reason"
        }
    }

    struct Usage: Decodable {
        var inputTokens: Int?
        var outputTokens: Int?
        var cacheReadInputTokens: Int?

        enum CodingKeys: String, CodingKey {
            case inputTokens = "input_tokens"
            case outputTokens = "output_tokens"
            case cacheReadInputTokens = "cache_read_input_tokens"
        }

        var counts: LLMUsage {
            LLMUsage(inputTokens: inputTokens, outputTokens: outputTokens, cachedInputTokens: cacheReadInputTokens)
        }
    }

    struct ErrorObject: Decodable {
        var type: String?
    }
}

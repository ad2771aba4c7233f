extension OpenAIRealtimeDecoder {
    /// The name the decoder's errors give the format.
    static let format = "openai-realtime"

    /// What the decoder does with a server event type.
    enum EventKind {
        case ignored, text, audio, itemAdded, itemDone, arguments, responseDone, error
    }

    /// Every server event type the decoder handles, in both spellings (the generally
    /// available API's `response.output_text.delta`, `response.output_audio.delta`,
    /// `response.output_audio_transcript.delta`, and the beta's `response.text.delta`,
    /// `response.audio.delta`, `response.audio_transcript.delta`); any other is
    /// ``LLMDelta/unrecognized(_:)``.
    static let kinds: [String: EventKind] = [
        "session.created": .ignored, "session.updated": .ignored, "conversation.created": .ignored,
        "conversation.item.created": .ignored, "conversation.item.added": .ignored, "conversation.item.done": .ignored,
        "conversation.item.retrieved": .ignored, "conversation.item.truncated": .ignored,
        "conversation.item.deleted": .ignored, "rate_limits.updated": .ignored,
        "input_audio_buffer.committed": .ignored, "input_audio_buffer.cleared": .ignored,
        "response.created": .ignored, "response.content_part.added": .ignored, "response.content_part.done": .ignored,
        "response.output_text.delta": .text, "response.text.delta": .text,
        "response.output_audio_transcript.delta": .text, "response.audio_transcript.delta": .text,
        "response.output_text.done": .ignored, "response.text.done": .ignored,
        "response.output_audio_transcript.done": .ignored, "response.audio_transcript.done": .ignored,
        "response.output_audio.delta": .audio, "response.audio.delta": .audio,
        "response.output_audio.done": .ignored, "response.audio.done": .ignored,
        "response.output_item.added": .itemAdded, "response.output_item.done": .itemDone,
        "response.function_call_arguments.delta": .arguments, "response.function_call_arguments.done": .ignored,
        "response.done": .responseDone, "error": .error,
    ]

    /// The parts of a Realtime server event the decoder reads (OpenAI API reference,
    /// "Realtime server events").
    struct Event: Decodable {
        var type: String?
        var responseID: String?
        var itemID: String?
        var callID: String?
        var delta: String?
        var item: Item?
        var response: Response?
        var error: ErrorObject?

        enum CodingKeys: String, CodingKey {
            case type, delta, item, response, error
            case responseID = "response_id"
            case itemID = "item_id"
            case callID = "call_id"
        }

        /// Reads the fields only for a type the decoder handles: other event types carry
        /// other shapes under the same names.
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .type)?.value
            guard let type, let kind = OpenAIRealtimeDecoder.kinds[type], kind != .ignored else { return }
            responseID = try c.decodeIfPresent(String.self, forKey: .responseID)
            itemID = try c.decodeIfPresent(String.self, forKey: .itemID)
            callID = try c.decodeIfPresent(String.self, forKey: .callID)
            delta = try c.decodeIfPresent(String.self, forKey: .delta)
            item = try c.decodeIfPresent(Item.self, forKey: .item)
            response = try c.decodeIfPresent(Response.self, forKey: .response)
            error = try? c.decodeIfPresent(ErrorObject.self, forKey: .error)
        }
    }

    /// A conversation item: the decoder reads function calls and names the rest.
    struct Item: Decodable {
        var id: String?
        var type: String?
        var callID: String?
        var name: String?
        var arguments: String?

        enum CodingKeys: String, CodingKey {
            case id, type, name, arguments
            case callID = "call_id"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decodeIfPresent(String.self, forKey: .id)
            type = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .type)?.value
            guard type == "function_call" else { return }
            callID = try c.decodeIfPresent(String.self, forKey: .callID)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            arguments = try c.decodeIfPresent(String.self, forKey: .arguments)
        }
    }

    /// The response object of `response.done`.
    struct Response: Decodable {
        var id: String?
        var status: String?
        var statusDetails: StatusDetails?
        var usage: Usage?

        enum CodingKeys: String, CodingKey {
            case id, status, usage
            case statusDetails = "status_details"
        }
    }

    struct StatusDetails: Decodable {
        var reason: String?
        var error: ErrorObject?

        enum CodingKeys: String, CodingKey { case reason, error }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            reason = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .reason)?.value
            error = try? c.decodeIfPresent(ErrorObject.self, forKey: .error)
        }
    }

    /// `{"type": …, "code": …, "message": …}`, read leniently.
    struct ErrorObject: Decodable {
        var type: String?
        var code: String?
        var message: String?

        enum CodingKeys: String, CodingKey { case type, code, message }

        init(from decoder: any Decoder) throws {
            guard let c = try? decoder.container(keyedBy: CodingKeys.self) else { return }
            type = try? c.decodeIfPresent(String.self, forKey: .type)
            code = try? c.decodeIfPresent(String.self, forKey: .code)
            message = try? c.decodeIfPresent(String.self, forKey: .message)
        }
    }

    /// `usage` of a response: tokens in, out, in total, and the cached input tokens
    /// (`input_token_details.cached_tokens`).
    struct Usage: Decodable {
        var inputTokens: Int?
        var outputTokens: Int?
        var totalTokens: Int?
        var inputTokenDetails: LLMWireJSON.TokenDetails?

        enum CodingKeys: String, CodingKey {
            case inputTokens = "input_tokens"
            case outputTokens = "output_tokens"
            case totalTokens = "total_tokens"
            case inputTokenDetails = "input_token_details"
        }

        var counts: LLMUsage {
            LLMUsage(
                inputTokens: inputTokens, outputTokens: outputTokens, totalTokens: totalTokens,
                cachedInputTokens: inputTokenDetails?.cachedTokens)
        }
    }
}

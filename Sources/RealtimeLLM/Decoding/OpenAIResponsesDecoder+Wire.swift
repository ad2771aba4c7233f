extension OpenAIResponsesDecoder {
    /// The parts of a Responses API stream event the decoder reads (OpenAI API reference,
    /// "Streaming events").
    struct Event: Decodable {
        var type: String?
        var outputIndex: Int?
        var contentIndex: Int?
        var summaryIndex: Int?
        var delta: String?
        var item: Item?
        var annotation: LLMWireValue?
        var response: ResponseObject?
        /// The `error` event's fields (`code` may be null).
        var code: LLMWireJSON.LenientString?
        var message: LLMWireJSON.LenientString?
        /// The `error` event as some servers send it: the same fields under `error`.
        var error: ErrorObject?

        enum CodingKeys: String, CodingKey {
            case type, delta, item, annotation, response, code, message, error
            case outputIndex = "output_index"
            case contentIndex = "content_index"
            case summaryIndex = "summary_index"
        }

        /// Reads the fields only for a type the decoder handles (or none in the data): other
        /// event types carry other shapes under the same names (an audio event's `delta`).
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .type)?.value
            if let type, OpenAIResponsesDecoder.kind(of: type) == nil { return }
            outputIndex = try c.decodeIfPresent(Int.self, forKey: .outputIndex)
            contentIndex = try c.decodeIfPresent(Int.self, forKey: .contentIndex)
            summaryIndex = try c.decodeIfPresent(Int.self, forKey: .summaryIndex)
            delta = try c.decodeIfPresent(String.self, forKey: .delta)
            item = try c.decodeIfPresent(Item.self, forKey: .item)
            annotation = try c.decodeIfPresent(LLMWireValue.self, forKey: .annotation)
            response = try c.decodeIfPresent(ResponseObject.self, forKey: .response)
            code = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .code)
            message = try c.decodeIfPresent(LLMWireJSON.LenientString.self, forKey: .message)
            error = try? c.decodeIfPresent(ErrorObject.self, forKey: .error)
        }
    }

    /// An output item: a message, a function or custom tool call, reasoning, or a built-in
    /// tool's call (web search, …), which the decoder names and skips.
    struct Item: Decodable {
        var type: String
        var callID: String?
        var name: String?
        /// A `function_call`'s arguments (empty when added, whole when done).
        var arguments: String?
        /// A `custom_tool_call`'s input (the same).
        var input: String?

        enum CodingKeys: String, CodingKey {
            case type, name, arguments, input
            case callID = "call_id"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            type = try c.decode(String.self, forKey: .type)
            guard type == "function_call" || type == "custom_tool_call" else { return }
            callID = try c.decodeIfPresent(String.self, forKey: .callID)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            arguments = try c.decodeIfPresent(String.self, forKey: .arguments)
            input = try c.decodeIfPresent(String.self, forKey: .input)
        }
    }

    /// The response object of the lifecycle events.
    struct ResponseObject: Decodable {
        var status: String?
        var incompleteDetails: IncompleteDetails?
        var error: ErrorObject?
        var usage: Usage?

        enum CodingKeys: String, CodingKey {
            case status, error, usage
            case incompleteDetails = "incomplete_details"
        }
    }

    struct IncompleteDetails: Decodable {
        var reason: String?
    }

    /// `{"code": …, "message": …}`, read leniently: any value under `error` is an error.
    struct ErrorObject: Decodable {
        var code: String?
        var type: String?
        var message: String?

        enum CodingKeys: String, CodingKey { case code, type, message }

        init(from decoder: any Decoder) throws {
            guard let c = try? decoder.container(keyedBy: CodingKeys.self) else { return }
            code = try? c.decodeIfPresent(String.self, forKey: .code)
            type = try? c.decodeIfPresent(String.self, forKey: .type)
            message = try? c.decodeIfPresent(String.self, forKey: .message)
        }
    }

    struct Usage: Decodable {
        var inputTokens: Int?
        var outputTokens: Int?
        var totalTokens: Int?
        var inputTokensDetails: LLMWireJSON.TokenDetails?
        var outputTokensDetails: LLMWireJSON.TokenDetails?

        enum CodingKeys: String, CodingKey {
            case inputTokens = "input_tokens"
            case outputTokens = "output_tokens"
            case totalTokens = "total_tokens"
            case inputTokensDetails = "input_tokens_details"
            case outputTokensDetails = "output_tokens_details"
        }

        var counts: LLMUsage {
            LLMUsage(
                inputTokens: inputTokens, outputTokens: outputTokens, totalTokens: totalTokens,
                reasoningTokens: outputTokensDetails?.reasoningTokens, cachedInputTokens: inputTokensDetails?.cachedTokens)
        }
    }
}

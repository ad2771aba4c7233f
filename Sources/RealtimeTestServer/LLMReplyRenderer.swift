/// The events of a fake LLM reply in one wire format, as SSE text: what the fake LLM
/// endpoints write (see ``LLMEndpoint``).
struct LLMReplyRenderer {
    let options: LLMReplyOptions
    let requestBody: [UInt8]

    /// Every event of the reply, in order, each a complete SSE event (ending with a blank
    /// line), the terminator included unless the reply is truncated or failed.
    func events() -> [String] {
        switch options.format {
        case .openAI: return openAIEvents()
        case .anthropic: return anthropicEvents()
        case .responses: return responsesEvents()
        case .gemini: return geminiEvents()
        }
    }

    func errorBody(status: Int) -> String { options.errorBody(status: status) }

    /// One more text delta in the format (the deltas of an `endless=1` stream).
    func textDelta(_ text: String) -> String {
        switch options.format {
        case .openAI:
            return openAIDelta(#"{"content":\#(LLMReplyOptions.json(text))}"#)
        case .anthropic:
            return anthropicEvent(
                "content_block_delta",
                #"{"type":"content_block_delta","index":\#(textBlock),"delta":{"type":"text_delta","text":\#(LLMReplyOptions.json(text))}}"#)
        case .responses:
            return responsesEvent("response.output_text.delta", #""item_id":"msg_test","output_index":\#(messageOutput),"content_index":0,"delta":\#(LLMReplyOptions.json(text)),"logprobs":[]"#, sequence: 0)
        case .gemini:
            return geminiChunk(#"{"text":\#(LLMReplyOptions.json(text))}"#)
        }
    }

    /// How many events come before the text in the formats where the start is fixed: what
    /// an `endless=1` stream sends before its endless deltas.
    var startCount: Int {
        let reasoning = options.reasoning ? LLMReplyOptions.reasoningPieces.count : 0
        switch options.format {
        case .openAI: return 1 + options.count + reasoning
        case .anthropic: return 3 + options.count + (options.reasoning ? 3 + reasoning : 0)
        case .responses: return 4 + options.count + (options.reasoning ? 5 + reasoning : 0)
        case .gemini: return options.count + reasoning
        }
    }

    /// Output tokens the usage reports: one per text delta and argument fragment.
    var outputTokens: Int {
        let pieces = options.reply == .tools ? 1 : options.textPieces(requestBody: requestBody).count
        let fragments = options.reply == .tools ? LLMReplyOptions.toolCalls.reduce(0) { $0 + $1.arguments.count } : 0
        return pieces + fragments
    }

    static let inputTokens = 12

    var texts: [String] {
        options.reply == .tools ? [LLMReplyOptions.toolPreamble] : options.textPieces(requestBody: requestBody)
    }

    // MARK: OpenAI chat completions

    private func openAIChunk(_ choice: String, usage: String = "null") -> String {
        #"data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1700000000,"model":"test-model","choices":[\#(choice)],"usage":\#(usage)}"#
            + "\n\n"
    }

    private func openAIDelta(_ delta: String, finish: String? = nil) -> String {
        openAIChunk(#"{"index":0,"delta":\#(delta),"logprobs":null,"finish_reason":\#(finish.map(LLMReplyOptions.json) ?? "null")}"#)
    }

    private func openAIEvents() -> [String] {
        var events = [openAIDelta(#"{"role":"assistant","content":""}"#)]
        if options.reasoning {
            events += LLMReplyOptions.reasoningPieces.map { openAIDelta(#"{"content":null,"reasoning_content":\#(LLMReplyOptions.json($0))}"#) }
        }
        events += texts.map { openAIDelta(#"{"content":\#(LLMReplyOptions.json($0))}"#) }
        if options.unknownEvent { events.insert(#"data: {"object":"keepalive"}"# + "\n\n", at: min(2 + reasoningCount, events.count)) }
        if options.reply == .error {
            return events + ["data: " + errorBody(status: 500) + "\n\n"]
        }
        if options.reply == .tools {
            for (index, call) in LLMReplyOptions.toolCalls.enumerated() {
                events.append(openAIDelta(
                    #"{"tool_calls":[{"index":\#(index),"id":"\#(call.id)","type":"function","function":{"name":"\#(call.name)","arguments":""}}]}"#))
                events += call.arguments.map {
                    openAIDelta(#"{"tool_calls":[{"index":\#(index),"function":{"arguments":\#(LLMReplyOptions.json($0))}}]}"#)
                }
            }
        }
        if options.end == .truncate { return events }
        events.append(openAIDelta("{}", finish: options.reply == .tools ? "tool_calls" : "stop"))
        let total = Self.inputTokens + outputTokens
        events.append(openAIChunk(
            "", usage: #"{"prompt_tokens":\#(Self.inputTokens),"completion_tokens":\#(outputTokens),"total_tokens":\#(total)}"#))
        return events + ["data: [DONE]\n\n"]
    }

    // MARK: Anthropic Messages

    /// Reasoning fragments before the text (0 without `reasoning=1`).
    var reasoningCount: Int { options.reasoning ? LLMReplyOptions.reasoningPieces.count : 0 }

    private func anthropicEvent(_ type: String, _ data: String) -> String {
        "event: \(type)\ndata: \(data)\n\n"
    }

    /// The content block index of the text: after the thinking block, if any.
    private var textBlock: Int { options.reasoning ? 1 : 0 }

    private func anthropicThinking() -> [String] {
        guard options.reasoning else { return [] }
        var events = [anthropicEvent("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#)]
        events += LLMReplyOptions.reasoningPieces.map {
            anthropicEvent("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":\#(LLMReplyOptions.json($0))}}"#)
        }
        events.append(anthropicEvent("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"\#(LLMReplyOptions.reasoningSignature)"}}"#))
        return events + [anthropicEvent("content_block_stop", #"{"type":"content_block_stop","index":0}"#)]
    }

    private func anthropicEvents() -> [String] {
        var events = [anthropicEvent("message_start", #"{"type":"message_start","message":{"id":"msg_test","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":\#(Self.inputTokens),"output_tokens":1}}}"#)]
        events += anthropicThinking()
        events += [
            anthropicEvent("content_block_start", #"{"type":"content_block_start","index":\#(textBlock),"content_block":{"type":"text","text":""}}"#),
            anthropicEvent("ping", #"{"type": "ping"}"#),
        ]
        let textStart = events.count
        events += texts.map {
            anthropicEvent("content_block_delta", #"{"type":"content_block_delta","index":\#(textBlock),"delta":{"type":"text_delta","text":\#(LLMReplyOptions.json($0))}}"#)
        }
        if options.unknownEvent {
            let unknown = anthropicEvent(
                "content_block_summary", #"{"type":"content_block_summary","index":"first","delta":"short","message":[1,2]}"#)
            events.insert(unknown, at: min(textStart + 1, events.count))
        }
        if options.reply == .error {
            return events + [anthropicEvent("error", errorBody(status: 529))]
        }
        events.append(anthropicEvent("content_block_stop", #"{"type":"content_block_stop","index":\#(textBlock)}"#))
        if options.reply == .tools {
            for (offset, call) in LLMReplyOptions.toolCalls.enumerated() {
                let index = offset + 1 + textBlock
                events.append(anthropicEvent("content_block_start", #"{"type":"content_block_start","index":\#(index),"content_block":{"type":"tool_use","id":"\#(call.id)","name":"\#(call.name)","input":{}}}"#))
                events += call.arguments.map {
                    anthropicEvent("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"input_json_delta","partial_json":\#(LLMReplyOptions.json($0))}}"#)
                }
                events.append(anthropicEvent("content_block_stop", #"{"type":"content_block_stop","index":\#(index)}"#))
            }
        }
        if options.end == .truncate { return events }
        let reason = options.reply == .tools ? "tool_use" : "end_turn"
        events.append(anthropicEvent("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"\#(reason)","stop_sequence":null},"usage":{"output_tokens":\#(outputTokens)}}"#))
        return events + [anthropicEvent("message_stop", #"{"type":"message_stop"}"#)]
    }
}

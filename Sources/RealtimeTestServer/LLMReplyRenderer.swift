/// The events of a fake LLM reply in one wire format, as SSE text: what the
/// `/llm/openai` and `/llm/anthropic` endpoints write.
struct LLMReplyRenderer {
    let options: LLMReplyOptions
    let requestBody: [UInt8]

    /// Every event of the reply, in order, each a complete SSE event (ending with a blank
    /// line), the terminator included unless the reply is truncated or failed.
    func events() -> [String] {
        switch options.format {
        case .openAI: return openAIEvents()
        case .anthropic: return anthropicEvents()
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
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(LLMReplyOptions.json(text))}}"#)
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
        events += texts.map { openAIDelta(#"{"content":\#(LLMReplyOptions.json($0))}"#) }
        if options.unknownEvent { events.insert(#"data: {"object":"keepalive"}"# + "\n\n", at: min(2, events.count)) }
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

    private func anthropicEvent(_ type: String, _ data: String) -> String {
        "event: \(type)\ndata: \(data)\n\n"
    }

    private func anthropicEvents() -> [String] {
        var events = [
            anthropicEvent("message_start", #"{"type":"message_start","message":{"id":"msg_test","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":\#(Self.inputTokens),"output_tokens":1}}}"#),
            anthropicEvent("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            anthropicEvent("ping", #"{"type": "ping"}"#),
        ]
        events += texts.map {
            anthropicEvent("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(LLMReplyOptions.json($0))}}"#)
        }
        if options.unknownEvent {
            let unknown = anthropicEvent(
                "content_block_summary", #"{"type":"content_block_summary","index":"first","delta":"short","message":[1,2]}"#)
            events.insert(unknown, at: min(4, events.count))
        }
        if options.reply == .error {
            return events + [anthropicEvent("error", errorBody(status: 529))]
        }
        events.append(anthropicEvent("content_block_stop", #"{"type":"content_block_stop","index":0}"#))
        if options.reply == .tools {
            for (offset, call) in LLMReplyOptions.toolCalls.enumerated() {
                let index = offset + 1
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

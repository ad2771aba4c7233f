/// The OpenAI Responses API stream: named events whose data carries the same `type` and a
/// `sequence_number` equal to the event's position in the reply.
extension LLMReplyRenderer {
    /// The message item's `output_index`: after the reasoning item, if any.
    var messageOutput: Int { options.reasoning ? 1 : 0 }

    func responsesEvent(_ type: String, _ fields: String, sequence: Int) -> String {
        "event: \(type)\ndata: {\"type\":\"\(type)\",\(fields),\"sequence_number\":\(sequence)}\n\n"
    }

    private func responseObject(_ status: String, _ more: String = #""error":null,"incomplete_details":null,"usage":null"#) -> String {
        #""response":{"id":"\#(options.responseID)","object":"response","created_at":1700000000,"status":"\#(status)","background":\#(options.queued),\#(more),"model":"test-model","output":[],"previous_response_id":null,"store":true}"#
    }

    /// Every event of the reply as (type, fields), numbered in ``responsesEvents()``.
    private func responsesParts() -> [(String, String)] {
        var events = [("response.created", responseObject(options.queued ? "queued" : "in_progress"))]
        if options.queued { return events + [("response.queued", responseObject("queued"))] }
        events.append(("response.in_progress", responseObject("in_progress")))
        events += responsesReasoning()
        let message = #""item_id":"msg_test","output_index":\#(messageOutput),"content_index":0"#
        events += [
            ("response.output_item.added", #""output_index":\#(messageOutput),"item":{"id":"msg_test","type":"message","status":"in_progress","role":"assistant","content":[]}"#),
            ("response.content_part.added", #"\#(message),"part":{"type":"output_text","text":"","annotations":[]}"#),
        ]
        let textStart = events.count
        events += texts.map { ("response.output_text.delta", #"\#(message),"delta":\#(LLMReplyOptions.json($0)),"logprobs":[]"#) }
        if options.unknownEvent {
            events.insert(("response.future_event", #""item_id":7,"output_index":"first","delta":{"x":[1,2]}"#), at: min(textStart + 1, events.count))
        }
        if options.reply == .error {
            return events + [("error", #""code":"server_error","message":"The server had an error while processing your request.","param":null"#)]
        }
        let text = LLMReplyOptions.json(texts.joined())
        events += [
            ("response.output_text.done", #"\#(message),"text":\#(text),"logprobs":[]"#),
            ("response.content_part.done", #"\#(message),"part":{"type":"output_text","text":\#(text),"annotations":[]}"#),
            ("response.output_item.done", #""output_index":\#(messageOutput),"item":{"id":"msg_test","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":\#(text),"annotations":[]}]}"#),
        ]
        if options.reply == .tools { events += responsesToolCalls() }
        if options.end == .truncate { return events }
        let usage = #""usage":{"input_tokens":\#(Self.inputTokens),"input_tokens_details":{"cached_tokens":0},"output_tokens":\#(outputTokens + reasoningCount),"output_tokens_details":{"reasoning_tokens":\#(reasoningCount)},"total_tokens":\#(Self.inputTokens + outputTokens + reasoningCount)}"#
        return events + [("response.completed", responseObject("completed", #""error":null,"incomplete_details":null,\#(usage)"#))]
    }

    private func responsesReasoning() -> [(String, String)] {
        guard options.reasoning else { return [] }
        let part = #""item_id":"rs_test","output_index":0,"summary_index":0"#
        let summary = LLMReplyOptions.json(LLMReplyOptions.reasoningPieces.joined())
        return [
            ("response.output_item.added", #""output_index":0,"item":{"id":"rs_test","type":"reasoning","summary":[]}"#),
            ("response.reasoning_summary_part.added", #"\#(part),"part":{"type":"summary_text","text":""}"#),
        ] + LLMReplyOptions.reasoningPieces.map { ("response.reasoning_summary_text.delta", #"\#(part),"delta":\#(LLMReplyOptions.json($0))"#) } + [
            ("response.reasoning_summary_text.done", #"\#(part),"text":\#(summary)"#),
            ("response.reasoning_summary_part.done", #"\#(part),"part":{"type":"summary_text","text":\#(summary)}"#),
            ("response.output_item.done", #""output_index":0,"item":{"id":"rs_test","type":"reasoning","summary":[{"type":"summary_text","text":\#(summary)}]}"#),
        ]
    }

    private func responsesToolCalls() -> [(String, String)] {
        var events: [(String, String)] = []
        for (offset, call) in LLMReplyOptions.toolCalls.enumerated() {
            let output = messageOutput + 1 + offset
            let arguments = LLMReplyOptions.json(call.arguments.joined())
            let item = #""type":"function_call","id":"fc_\#(offset)","call_id":"\#(call.id)","name":"\#(call.name)""#
            events.append(("response.output_item.added", #""output_index":\#(output),"item":{\#(item),"arguments":"","status":"in_progress"}"#))
            events += call.arguments.map {
                ("response.function_call_arguments.delta", #""item_id":"fc_\#(offset)","output_index":\#(output),"delta":\#(LLMReplyOptions.json($0))"#)
            }
            events += [
                ("response.function_call_arguments.done", #""item_id":"fc_\#(offset)","output_index":\#(output),"arguments":\#(arguments)"#),
                ("response.output_item.done", #""output_index":\#(output),"item":{\#(item),"arguments":\#(arguments),"status":"completed"}"#),
            ]
        }
        return events
    }

    /// The reply's events, each with its `sequence_number` (its position).
    func responsesEvents() -> [String] {
        responsesParts().enumerated().map { responsesEvent($0.element.0, $0.element.1, sequence: $0.offset) }
    }
}

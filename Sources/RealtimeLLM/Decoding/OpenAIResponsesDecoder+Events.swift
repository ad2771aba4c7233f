import RealtimeCore

extension OpenAIResponsesDecoder {
    /// The name the decoder's errors give the format.
    static let format = "openai-responses"

    /// What the decoder does with an event type.
    enum EventKind {
        case ignored, itemAdded, itemDone, text, refusal, annotation, arguments, summaryPartAdded, summary,
            reasoningText, completed, incomplete, failed, error
    }

    /// Every event type the decoder handles; any other is ``LLMDelta/unrecognized(_:)``.
    static let kinds: [String: EventKind] = [
        "response.created": .ignored, "response.queued": .ignored, "response.in_progress": .ignored,
        "response.output_item.added": .itemAdded, "response.output_item.done": .itemDone,
        "response.content_part.added": .ignored, "response.content_part.done": .ignored,
        "response.output_text.delta": .text, "response.output_text.done": .ignored,
        "response.output_text.annotation.added": .annotation,
        "response.refusal.delta": .refusal, "response.refusal.done": .ignored,
        "response.function_call_arguments.delta": .arguments, "response.function_call_arguments.done": .ignored,
        "response.custom_tool_call_input.delta": .arguments, "response.custom_tool_call_input.done": .ignored,
        "response.reasoning_summary_part.added": .summaryPartAdded, "response.reasoning_summary_part.done": .ignored,
        "response.reasoning_summary_text.delta": .summary, "response.reasoning_summary_text.done": .ignored,
        "response.reasoning_text.delta": .reasoningText, "response.reasoning_text.done": .ignored,
        "response.completed": .completed, "response.incomplete": .incomplete, "response.failed": .failed,
        "error": .error,
    ]

    static func kind(of type: String) -> EventKind? { kinds[type] }

    /// The event types that end a reply.
    private static let endTypes: Set<String> = ["response.completed", "response.incomplete", "response.failed", "error"]

    /// Whether `message` ends the reply: its SSE type, or without one its data's top-level
    /// `type`, is an end type. Runs on the I/O thread: the data is scanned, not decoded,
    /// and only when the SSE type does not say.
    static func isEnd(_ message: Message) -> Bool {
        if let type = message.type, type != "message" { return endTypes.contains(type) }
        return message.withPayloadBytes { buffer in
            guard let type = LLMJSONScanner.string("type", in: buffer) else { return false }
            return endTypes.contains(String(decoding: UnsafeBufferPointer(rebasing: type), as: UTF8.self))
        }
    }
}

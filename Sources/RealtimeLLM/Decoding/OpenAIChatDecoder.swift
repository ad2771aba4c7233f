import RealtimeCore

/// Decodes the OpenAI chat completions stream (`stream: true`): every event's data is a
/// `chat.completion.chunk` object, and `data: [DONE]` ends the reply.
///
/// - `choices[].delta.content` → ``LLMDelta/text(_:)`` (empty strings are skipped);
/// - `choices[].delta.tool_calls[]` → ``LLMDelta/toolCall(_:)`` with `index`, `id`,
///   `function.name` and the `function.arguments` fragment. A server that omits `index`
///   gets one from the call's `id` (a new id is the next call), else the last call's;
/// - `choices[].finish_reason` → ``LLMDelta/toolCallEnd(index:)`` for every call still open,
///   then ``LLMDelta/finish(_:)``;
/// - `usage` (the last chunk with `stream_options.include_usage`, `choices` empty) →
///   ``LLMDelta/usage(_:)``;
/// - `{"error": {...}}` → ``LLMDelta/error(_:)`` with code `stream_error`, the error's
///   `type` (or `code`) in the detail and the event's data as the body excerpt;
/// - `[DONE]` → nothing: it is the ``terminator``, where the client ends the reply without
///   delivering it.
///
/// Only the choice numbered ``choice`` is followed (the one reply a request without `n`
/// produces); chunks of other choices are skipped. `role`, `refusal` and `logprobs` are not
/// decoded. A data that is not JSON, or an object with neither `choices` nor `error`, throws
/// `protocol_violation`.
public struct OpenAIChatDecoder: LLMStreamDecoder {
    /// The `choices[].index` this decoder follows. Default 0.
    public var choice: Int
    /// Tool calls that have fragments and no end yet, in index order.
    private var openCalls: [Int] = []
    /// Index given to each call id seen, for servers that omit `index`.
    private var indexByID: [String: Int] = [:]
    private var lastIndex: Int?
    private var finished = false

    /// `data: [DONE]`.
    public static var terminator: StreamTerminator? { .data("[DONE]") }

    public init(choice: Int = 0) {
        self.choice = choice
    }

    public mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        if message.text == "[DONE]" { return }
        let chunk = try LLMWireJSON.decode(Chunk.self, from: message, format: "openai")
        if let error = chunk.error {
            deltas.append(.error(LLMWireJSON.streamError(format: "openai", type: error.type ?? error.code, message: message)))
            return
        }
        guard let choices = chunk.choices else {
            throw RealtimeError(.protocolViolation, detail: "openai: the event's data has neither 'choices' nor 'error'")
        }
        for c in choices where (c.index ?? 0) == choice {
            if let delta = c.delta { decode(delta, into: &deltas) }
            if let reason = c.finishReason, !finished {
                finished = true
                deltas += openCalls.map { .toolCallEnd(index: $0) }
                openCalls.removeAll()
                deltas.append(.finish(LLMFinishReason(reason)))
            }
        }
        if let usage = chunk.usage {
            deltas.append(.usage(LLMUsage(
                inputTokens: usage.promptTokens, outputTokens: usage.completionTokens, totalTokens: usage.totalTokens)))
        }
    }

    private mutating func decode(_ delta: Chunk.Delta, into deltas: inout [LLMDelta]) {
        if let content = delta.content, !content.isEmpty { deltas.append(.text(content)) }
        for call in delta.toolCalls ?? [] {
            let index = resolveIndex(call)
            if !openCalls.contains(index) {
                openCalls.insert(index, at: openCalls.firstIndex { $0 > index } ?? openCalls.endIndex)
            }
            deltas.append(.toolCall(LLMToolCallDelta(
                index: index, id: call.id, name: call.function?.name, argumentsFragment: call.function?.arguments ?? "")))
        }
    }

    private mutating func resolveIndex(_ call: Chunk.ToolCall) -> Int {
        let index: Int
        if let given = call.index {
            index = given
        } else if let id = call.id, !id.isEmpty {
            index = indexByID[id] ?? ((indexByID.values.max() ?? (lastIndex ?? -1)) + 1)
        } else {
            index = lastIndex ?? 0
        }
        if let id = call.id, !id.isEmpty, indexByID[id] == nil { indexByID[id] = index }
        lastIndex = index
        return index
    }
}

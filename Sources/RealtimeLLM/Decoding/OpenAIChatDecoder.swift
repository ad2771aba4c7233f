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
/// - an object with neither `choices` nor `error` (`{"object":"keepalive"}`, which proxies
///   and local servers add) → ``LLMDelta/unrecognized(_:)`` with its `object`: skipped, the
///   reply goes on.
///
/// Only the choice numbered ``choice`` is followed (the one reply a request without `n`
/// produces); chunks of other choices are skipped. `role`, `refusal`, `annotations` (web
/// search citations) and `logprobs` are not decoded. A data that is not a JSON object, or a
/// known field of the wrong type, throws `protocol_violation`.
///
/// Each chunk costs time in proportion to its own size: open tool calls are a set and call
/// ids a dictionary, so a reply with a million tool calls decodes in linear time.
public struct OpenAIChatDecoder: LLMStreamDecoder {
    /// The `choices[].index` this decoder follows. Default 0.
    public var choice: Int
    /// Tool calls that have fragments and no end yet (ended in index order at the finish).
    private var openCalls: Set<Int> = []
    /// Index given to each call id seen, for servers that omit `index`.
    private var indexByID: [String: Int] = [:]
    /// The highest index in ``indexByID``: the next new id gets the one after it.
    private var highestIDIndex: Int?
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
            deltas.append(.unrecognized(LLMWireJSON.identifier(chunk.object?.value) ?? ""))
            return
        }
        for c in choices where (c.index ?? 0) == choice {
            if let delta = c.delta { decode(delta, into: &deltas) }
            if let reason = c.finishReason, !finished {
                finished = true
                deltas += openCalls.sorted().map { .toolCallEnd(index: $0) }
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
            openCalls.insert(index)
            deltas.append(.toolCall(LLMToolCallDelta(
                index: index, id: call.id, name: call.function?.name, argumentsFragment: call.function?.arguments ?? "")))
        }
    }

    private mutating func resolveIndex(_ call: Chunk.ToolCall) -> Int {
        let index: Int
        if let given = call.index {
            index = given
        } else if let id = call.id, !id.isEmpty {
            index = indexByID[id] ?? ((highestIDIndex ?? (lastIndex ?? -1)) + 1)
        } else {
            index = lastIndex ?? 0
        }
        if let id = call.id, !id.isEmpty, indexByID[id] == nil {
            indexByID[id] = index
            highestIDIndex = max(highestIDIndex ?? index, index)
        }
        lastIndex = index
        return index
    }
}

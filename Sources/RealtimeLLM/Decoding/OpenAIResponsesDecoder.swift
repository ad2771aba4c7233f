import RealtimeCore

/// Decodes the OpenAI Responses API stream (`POST /v1/responses` with `stream: true`, and
/// `GET /v1/responses/{id}?stream=true` for a background response): named events whose
/// data carries the same `type` and a `sequence_number` (OpenAI API reference, "Streaming
/// events").
///
/// - `response.output_text.delta` → ``LLMDelta/text(_:)``;
/// - `response.refusal.delta` → ``LLMDelta/refusal(_:)``;
/// - `response.output_text.annotation.added` → ``LLMDelta/citation(_:)`` with the
///   `annotation` (`url_citation`, `file_citation`, `container_file_citation`, `file_path`);
/// - `response.output_item.added` of a `function_call` or `custom_tool_call` item →
///   ``LLMDelta/toolCall(_:)`` with the item's `call_id` and `name`;
///   `response.function_call_arguments.delta` and `response.custom_tool_call_input.delta` →
///   the next fragment of that item's call; `response.output_item.done` of the item →
///   ``LLMDelta/toolCallEnd(index:)``;
/// - `response.reasoning_summary_text.delta` → ``LLMDelta/reasoning(_:)`` of kind `summary`,
///   `response.reasoning_text.delta` → of kind `text`; each summary part and each reasoning
///   text part of a reasoning item is a block of its own;
/// - `response.completed` → ``LLMDelta/finish(_:)`` with the response's `status`
///   (`completed`), then ``LLMDelta/usage(_:)`` (input, output, total, reasoning and cached
///   tokens); `response.incomplete` → a finish whose reason is `incomplete_details.reason`
///   (`max_output_tokens`, `content_filter`), then the usage;
/// - `response.failed` → ``LLMDelta/error(_:)`` with code `stream_error`, the response's
///   `error.code` in the detail and its `error.message` as the body excerpt; `error` → the
///   same with the event's `code` and its data as the body excerpt;
/// - the lifecycle events `response.created`, `response.queued` and `response.in_progress`,
///   and the `.done` and `.added` events whose content the deltas already carried → nothing
///   (the response id and sequence numbers they carry are the client's resume cursor);
/// - any other event type (web search, file search, code interpreter, image generation, MCP,
///   audio, shell calls, …), and `response.output_item.added` of an item type not decoded
///   (`web_search_call`, …) → ``LLMDelta/unrecognized(_:)`` with the event's or the item's
///   type: skipped, and the reply goes on.
///
/// Tool call indexes count the reply's function and custom tool calls (0, 1, …) in the
/// order their items were added; items are found by `output_index`. A data that is not a
/// JSON object, an event without a type, or a known event whose fields have the wrong shape
/// (or lack the `delta`, `item` or `output_index` it needs) throws `protocol_violation`.
public struct OpenAIResponsesDecoder: LLMStreamDecoder {
    private enum OutputKind {
        case message
        case tool(Int)
        case reasoning
        case other
    }

    /// A reasoning item's summary part or reasoning text part.
    private struct ReasoningPart: Hashable {
        var output: Int
        var part: Int
        var isSummary: Bool
    }

    /// What each output item of the reply is, by `output_index`.
    private var items: [Int: OutputKind] = [:]
    private var reasoningBlocks: [ReasoningPart: Int] = [:]
    private var toolCount = 0

    /// Delivered: `response.completed`, `response.incomplete`, `response.failed` and `error`
    /// end the reply, and the client hands them to the decoder, which reads the finish, the
    /// usage or the error they carry. Matched by the SSE `event:` type, or by the data's
    /// top-level `type` for a server that sends no `event:` lines.
    public static var terminator: StreamTerminator? {
        .matching(delivered: true) { isEnd($0) }
    }

    /// A decoder at the start of a reply.
    package init() {}

    public mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        let event = try LLMWireJSON.decode(Event.self, from: message, format: Self.format)
        guard let type = event.type ?? message.type, type != "message" else {
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): an event without a 'type'")
        }
        guard let kind = Self.kind(of: type) else {
            deltas.append(.unrecognized(LLMWireJSON.unrecognizedName(type, message)))
            return
        }
        switch kind {
        case .ignored:
            break
        case .itemAdded:
            try added(event, into: &deltas)
        case .itemDone:
            try done(event, into: &deltas)
        case .text, .refusal, .arguments, .summary, .reasoningText:
            try fragment(kind, type, event, into: &deltas)
        case .annotation:
            if let citation = event.annotation.flatMap({ LLMCitation(wire: $0) }) { deltas.append(.citation(citation)) }
        case .summaryPartAdded:
            _ = try reasoningBlock(event, type, isSummary: true)
        case .completed, .incomplete:
            let response = event.response
            let reason = kind == .completed ? response?.status ?? "completed"
                : response?.incompleteDetails?.reason ?? response?.status ?? "incomplete"
            deltas.append(.finish(LLMFinishReason(reason)))
            if let usage = response?.usage { deltas.append(.usage(usage.counts)) }
        case .failed:
            let error = event.response?.error
            deltas.append(.error(LLMWireJSON.streamError(
                format: Self.format, type: error?.code ?? error?.type, message: message, body: error?.message)))
        case .error:
            let code = event.code?.value ?? event.error?.code ?? event.error?.type
            deltas.append(.error(LLMWireJSON.streamError(format: Self.format, type: code, message: message)))
        }
    }

    /// `response.output_item.added`: a tool call's id and name; the kind of every item.
    private mutating func added(_ event: Event, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard let output = event.outputIndex, let item = event.item else {
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): response.output_item.added without 'output_index' and 'item'")
        }
        switch item.type {
        case "message":
            items[output] = .message
        case "reasoning":
            items[output] = .reasoning
        case "function_call", "custom_tool_call":
            let call = toolCall(for: output)
            deltas.append(.toolCall(LLMToolCallDelta(
                index: call, id: item.callID, name: item.name, argumentsFragment: item.arguments ?? item.input ?? "")))
        default:
            items[output] = .other
            deltas.append(.unrecognized(LLMWireJSON.identifier(item.type) ?? ""))
        }
    }

    /// `response.output_item.done`: a tool call is complete. A call whose `added` was not
    /// seen arrives whole here.
    private mutating func done(_ event: Event, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard let output = event.outputIndex, let item = event.item else {
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): response.output_item.done without 'output_index' and 'item'")
        }
        switch items[output] {
        case .tool(let call):
            deltas.append(.toolCallEnd(index: call))
        case nil where item.type == "function_call" || item.type == "custom_tool_call":
            let call = toolCall(for: output)
            deltas.append(.toolCall(LLMToolCallDelta(
                index: call, id: item.callID, name: item.name, argumentsFragment: item.arguments ?? item.input ?? "")))
            deltas.append(.toolCallEnd(index: call))
        default:
            break
        }
    }

    private mutating func fragment(_ kind: EventKind, _ type: String, _ event: Event, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard let delta = event.delta else {
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): \(type) without 'delta'")
        }
        switch kind {
        case .text:
            if !delta.isEmpty { deltas.append(.text(delta)) }
        case .refusal:
            if !delta.isEmpty { deltas.append(.refusal(delta)) }
        case .arguments:
            guard let output = event.outputIndex else {
                throw RealtimeError(.protocolViolation, detail: "\(Self.format): \(type) without 'output_index'")
            }
            // A fragment of an item whose `added` was not seen still belongs to a tool call.
            let call: Int
            if case .tool(let known) = items[output] { call = known } else { call = toolCall(for: output) }
            deltas.append(.toolCall(LLMToolCallDelta(index: call, argumentsFragment: delta)))
        default:
            let block = try reasoningBlock(event, type, isSummary: kind == .summary)
            guard !delta.isEmpty else { return }
            deltas.append(.reasoning(LLMReasoningDelta(index: block, kind: kind == .summary ? .summary : .text, fragment: delta)))
        }
    }

    private mutating func toolCall(for output: Int) -> Int {
        let call = toolCount
        toolCount += 1
        items[output] = .tool(call)
        return call
    }

    /// The reasoning block of the event's summary part (`summary_index`) or reasoning text
    /// part (`content_index`), numbered in the order the parts began.
    private mutating func reasoningBlock(_ event: Event, _ type: String, isSummary: Bool) throws(RealtimeError) -> Int {
        guard let output = event.outputIndex, let part = isSummary ? event.summaryIndex : event.contentIndex else {
            let field = isSummary ? "summary_index" : "content_index"
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): \(type) without 'output_index' and '\(field)'")
        }
        let key = ReasoningPart(output: output, part: part, isSummary: isSummary)
        if let known = reasoningBlocks[key] { return known }
        let block = reasoningBlocks.count
        reasoningBlocks[key] = block
        return block
    }
}

import Foundation
import RealtimeCore

/// Decodes the Anthropic Messages stream (`stream: true`): named events whose data carries
/// the same `type`.
///
/// - `message_start` → ``LLMDelta/usage(_:)`` with the input (and first output) tokens;
/// - `content_block_start` of a `text` block → its initial text, if any; of a `tool_use`
///   block → ``LLMDelta/toolCall(_:)`` with the call's `id` and `name` (and its `input`
///   when the block already carries a non-empty one);
/// - `content_block_delta` with `text_delta` → ``LLMDelta/text(_:)``; with
///   `input_json_delta` → the `partial_json` fragment of that block's tool call;
/// - `content_block_stop` of a tool block → ``LLMDelta/toolCallEnd(index:)``;
/// - `message_delta` → ``LLMDelta/finish(_:)`` with `stop_reason`, then the cumulative
///   ``LLMDelta/usage(_:)``;
/// - `error` → ``LLMDelta/error(_:)`` with code `stream_error` (the error's `type`, e.g.
///   `overloaded_error`, in the detail; the event's data as the body excerpt);
/// - `message_stop` (the ``terminator``, where the client ends the reply without delivering
///   it), `ping`, and content block and delta types this version does not decode
///   (thinking, signatures, citations, server tools) → nothing;
/// - an event type this version does not know → ``LLMDelta/unrecognized(_:)`` with the type:
///   skipped whole, whatever its fields hold (Anthropic adds event types over time and asks
///   clients to skip unknown ones), and the reply goes on.
///
/// Tool call indexes count the reply's `tool_use` blocks (0, 1, …), whatever their content
/// block index. A data that is not a JSON object, an event without a type, or a known
/// event whose fields have the wrong shape throws `protocol_violation`.
public struct AnthropicMessagesDecoder: LLMStreamDecoder {
    private enum Block {
        case text
        case tool(Int)
        case other
    }

    /// What each content block of the reply is, by content-block index.
    private var blocks: [Int: Block] = [:]
    private var toolCount = 0

    /// `event: message_stop`.
    public static var terminator: StreamTerminator? { .eventType("message_stop") }

    public init() {}

    public mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        let event = try LLMWireJSON.decode(Event.self, from: message, format: "anthropic")
        guard let type = event.type ?? message.type, type != "message" else {
            throw RealtimeError(.protocolViolation, detail: "anthropic: an event without a 'type'")
        }
        switch type {
        case "message_start":
            if let usage = event.message?.usage { deltas.append(.usage(usage.counts)) }
        case "content_block_start":
            try start(event, message: message, into: &deltas)
        case "content_block_delta":
            try delta(event, into: &deltas)
        case "content_block_stop":
            if let index = event.index, case .tool(let call) = blocks[index] { deltas.append(.toolCallEnd(index: call)) }
        case "message_delta":
            if let reason = event.delta?.stopReason { deltas.append(.finish(LLMFinishReason(reason))) }
            if let usage = event.usage { deltas.append(.usage(usage.counts)) }
        case "error":
            deltas.append(.error(LLMWireJSON.streamError(format: "anthropic", type: event.error?.type, message: message)))
        case "message_stop", "ping":
            break
        default:
            deltas.append(.unrecognized(LLMWireJSON.identifier(type) ?? ""))
        }
    }

    private mutating func start(_ event: Event, message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard let index = event.index, let block = event.contentBlock else {
            throw RealtimeError(.protocolViolation, detail: "anthropic: content_block_start without 'index' and 'content_block'")
        }
        switch block.type {
        case "text":
            blocks[index] = .text
            if let text = block.text, !text.isEmpty { deltas.append(.text(text)) }
        case "tool_use":
            let call = toolCall(for: index)
            let input = (block.inputKeyCount ?? 0) > 0 ? Self.inputJSON(of: message) : ""
            deltas.append(.toolCall(LLMToolCallDelta(index: call, id: block.id, name: block.name, argumentsFragment: input)))
        default:
            blocks[index] = .other
        }
    }

    private mutating func delta(_ event: Event, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard let index = event.index, let delta = event.delta else {
            throw RealtimeError(.protocolViolation, detail: "anthropic: content_block_delta without 'index' and 'delta'")
        }
        switch delta.type {
        case "text_delta":
            if let text = delta.text, !text.isEmpty { deltas.append(.text(text)) }
        case "input_json_delta":
            // A delta for a block whose start was not seen still belongs to a tool call.
            let call: Int
            if case .tool(let known) = blocks[index] { call = known } else { call = toolCall(for: index) }
            deltas.append(.toolCall(LLMToolCallDelta(index: call, argumentsFragment: delta.partialJSON ?? "")))
        default:
            break  // thinking_delta, signature_delta, citations_delta, …
        }
    }

    private mutating func toolCall(for block: Int) -> Int {
        let call = toolCount
        toolCount += 1
        blocks[block] = .tool(call)
        return call
    }

    /// The JSON text of `content_block.input` (a block that arrives with its input filled
    /// in rather than streamed); rare, so it is parsed a second time here.
    private static func inputJSON(of message: Message) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(message.bytes)) as? [String: Any],
            let block = object["content_block"] as? [String: Any], let input = block["input"],
            let data = try? JSONSerialization.data(withJSONObject: input, options: [.sortedKeys])
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}

import Foundation
import RealtimeCore

/// Decodes the Anthropic Messages stream (`stream: true`): named events whose data carries
/// the same `type`.
///
/// - `message_start` → ``LLMDelta/usage(_:)`` with the input (and first output) tokens and
///   `cache_read_input_tokens`;
/// - `content_block_start` of a `text` block → its initial text, if any; of a `tool_use`
///   block → ``LLMDelta/toolCall(_:)`` with the call's `id` and `name` (and its `input`
///   when the block already carries a non-empty one); of a `thinking` block → its initial
///   `thinking` and `signature`, if any; of a `redacted_thinking` block →
///   ``LLMDelta/reasoning(_:)`` of kind `redacted` with its `data`; of any other type
///   (`server_tool_use`, `web_search_tool_result`, …) → ``LLMDelta/unrecognized(_:)`` with
///   the block's type, and its deltas are skipped;
/// - `content_block_delta` with `text_delta` → ``LLMDelta/text(_:)``; with
///   `input_json_delta` → the `partial_json` fragment of that block's tool call; with
///   `thinking_delta` → ``LLMDelta/reasoning(_:)`` of kind `text`; with `signature_delta` →
///   of kind `signature`; with `citations_delta` → ``LLMDelta/citation(_:)``; with a delta
///   type this version does not know → ``LLMDelta/unrecognized(_:)`` with that type;
/// - `content_block_stop` of a tool block → ``LLMDelta/toolCallEnd(index:)``, after a `{}`
///   fragment when the block streamed no input (a tool without parameters: its input is the
///   start's `{}` and its one `input_json_delta` is empty);
/// - `message_delta` → ``LLMDelta/finish(_:)`` with `stop_reason` (`end_turn`, `tool_use`,
///   `max_tokens`, `refusal`, …), then the cumulative ``LLMDelta/usage(_:)``;
/// - `error` → ``LLMDelta/error(_:)`` with code `stream_error` (the error's `type`, e.g.
///   `overloaded_error`, in the detail; the event's data as the body excerpt);
/// - `message_stop` (the `terminator`, where the client ends the reply without delivering
///   it) and `ping` → nothing;
/// - an event type this version does not know → ``LLMDelta/unrecognized(_:)`` with the type:
///   skipped whole, whatever its fields hold (Anthropic adds event types over time and asks
///   clients to skip unknown ones), and the reply goes on.
///
/// Tool call indexes count the reply's `tool_use` blocks (0, 1, …), and reasoning block
/// indexes its `thinking` and `redacted_thinking` blocks, whatever their content block
/// index. A data that is not a JSON object, an event without a type, or a known event whose
/// fields have the wrong shape throws `protocol_violation`.
public struct AnthropicMessagesDecoder: LLMStreamDecoder {
    private enum Block {
        case text
        case tool(Int)
        case reasoning(Int)
        case other
    }

    /// What each content block of the reply is, by content-block index.
    private var blocks: [Int: Block] = [:]
    private var toolCount = 0
    /// Tool calls that received some of their input's JSON text.
    private var callsWithInput: Set<Int> = []
    private var reasoningCount = 0

    /// `event: message_stop`.
    public static var terminator: StreamTerminator? { .eventType("message_stop") }

    /// A decoder at the start of a reply.
    package init() {}

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
            guard let index = event.index, case .tool(let call) = blocks[index] else { break }
            if !callsWithInput.contains(call) { deltas.append(.toolCall(LLMToolCallDelta(index: call, argumentsFragment: "{}"))) }
            deltas.append(.toolCallEnd(index: call))
        case "message_delta":
            if let reason = event.delta?.stopReason { deltas.append(.finish(LLMFinishReason(reason))) }
            if let usage = event.usage { deltas.append(.usage(usage.counts)) }
        case "error":
            deltas.append(.error(LLMWireJSON.streamError(format: "anthropic", type: event.error?.type, message: message)))
        case "message_stop", "ping":
            break
        default:
            deltas.append(.unrecognized(LLMWireJSON.unrecognizedName(type, message)))
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
            if !input.isEmpty { callsWithInput.insert(call) }
            deltas.append(.toolCall(LLMToolCallDelta(index: call, id: block.id, name: block.name, argumentsFragment: input)))
        case "thinking":
            let reasoning = reasoningBlock(for: index)
            for (kind, value) in [(LLMReasoningDelta.Kind.text, block.thinking), (.signature, block.signature)] {
                if let value, !value.isEmpty {
                    deltas.append(.reasoning(LLMReasoningDelta(index: reasoning, kind: kind, fragment: value)))
                }
            }
        case "redacted_thinking":
            let reasoning = reasoningBlock(for: index)
            deltas.append(.reasoning(LLMReasoningDelta(index: reasoning, kind: .redacted, fragment: block.data ?? "")))
        default:
            blocks[index] = .other
            deltas.append(.unrecognized(LLMWireJSON.identifier(block.type) ?? ""))
        }
    }

    private mutating func delta(_ event: Event, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard let index = event.index, let delta = event.delta else {
            throw RealtimeError(.protocolViolation, detail: "anthropic: content_block_delta without 'index' and 'delta'")
        }
        // The deltas of a block this version skips (a server tool's input) stay skipped.
        if case .other = blocks[index] { return }
        switch delta.type {
        case "text_delta":
            if let text = delta.text, !text.isEmpty { deltas.append(.text(text)) }
        case "input_json_delta":
            // A delta for a block whose start was not seen still belongs to a tool call.
            let call: Int
            if case .tool(let known) = blocks[index] { call = known } else { call = toolCall(for: index) }
            if delta.partialJSON?.isEmpty == false { callsWithInput.insert(call) }
            deltas.append(.toolCall(LLMToolCallDelta(index: call, argumentsFragment: delta.partialJSON ?? "")))
        case "thinking_delta", "signature_delta":
            let reasoning: Int
            if case .reasoning(let known) = blocks[index] { reasoning = known } else { reasoning = reasoningBlock(for: index) }
            let (kind, value) = delta.type == "thinking_delta" ? (LLMReasoningDelta.Kind.text, delta.thinking) : (.signature, delta.signature)
            if let value, !value.isEmpty { deltas.append(.reasoning(LLMReasoningDelta(index: reasoning, kind: kind, fragment: value))) }
        case "citations_delta":
            if let citation = delta.citation.flatMap({ LLMCitation(wire: $0) }) { deltas.append(.citation(citation)) }
        default:
            deltas.append(.unrecognized(LLMWireJSON.identifier(delta.type) ?? ""))
        }
    }

    private mutating func reasoningBlock(for block: Int) -> Int {
        let reasoning = reasoningCount
        reasoningCount += 1
        blocks[block] = .reasoning(reasoning)
        return reasoning
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

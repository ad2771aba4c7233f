#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore

/// Decodes the server events of an OpenAI Realtime API session over WebSocket (OpenAI API
/// reference, "Realtime server events"). A session carries many responses, one after
/// another (``LLMStreamDecoder/carriesManyReplies``): each is a reply of its own, ended by
/// `response.done`.
///
/// - `response.output_text.delta` → ``LLMDelta/text(_:)``; for an audio reply,
///   `response.output_audio_transcript.delta` (its transcript) → ``LLMDelta/text(_:)`` too,
///   and `response.output_audio.delta` → ``LLMDelta/audio(_:)`` with the base64 decoded and
///   the `item_id`. The beta spellings (`response.text.delta`, `response.audio.delta`,
///   `response.audio_transcript.delta`, and their `.done` events) read the same.
/// - `response.output_item.added` of a `function_call` item → ``LLMDelta/toolCall(_:)`` with
///   its `call_id` and `name`; `response.function_call_arguments.delta` → the next fragment of
///   that item's call; `response.output_item.done` of the item → ``LLMDelta/toolCallEnd(index:)``
///   (a call whose `added` was not seen arrives whole there). Tool call indexes count each
///   response's calls from 0, in the order their items were added; fragments find their call
///   by `item_id`, so responses that interleave (out-of-band responses) stay apart.
/// - `response.done` → ``LLMDelta/usage(_:)`` (input, output, total and cached input
///   tokens), then by the response's `status`: `completed` → ``LLMDelta/finish(_:)``
///   `completed`; `incomplete` and `cancelled` → a finish whose reason is
///   `status_details.reason` (`max_output_tokens`, `content_filter`, `turn_detected`,
///   `client_cancelled`), else the status; `failed` → ``LLMDelta/error(_:)`` with code
///   `stream_error`, `status_details.error`'s code (or type) in the detail and its message
///   as the body excerpt. The finish or the error is always a response's last delta, so an
///   app can start the next reply's transcript there.
/// - `error` → ``LLMDelta/error(_:)`` with code `stream_error`, the error's `code` (or
///   `type`) in the detail and its `message` as the body excerpt. The Realtime API keeps the
///   session open after most errors (an invalid client event, a response already active), so
///   the delta sequence goes on after it.
/// - Session and conversation lifecycle events (`session.created`, `session.updated`,
///   `conversation.item.added`, `response.created`, content parts, the `.done` events whose
///   content the deltas already carried, `rate_limits.updated`, the acknowledgements
///   `input_audio_buffer.committed` and `.cleared`) → nothing.
/// - Any other event (`input_audio_buffer.speech_started`, input audio transcription, MCP
///   calls, a type newer than this decoder) → ``LLMDelta/unrecognized(_:)`` with its type, and
///   an output item other than a message or a function call → the same with the item's type:
///   the session goes on.
///
/// A data that is not a JSON object, an event without a type, a known event whose fields
/// have the wrong shape or lack the `delta`, `item` or `response` it needs, audio that is not
/// base64, or more than 1,024 function calls open at once throws `protocol_violation`.
public struct OpenAIRealtimeDecoder: LLMStreamDecoder {
    /// The most function calls open at once (added, not yet done) across the session's
    /// responses: a server that opens calls and never ends them cannot grow the decoder.
    package static let maxOpenToolCalls = 1024

    private struct OpenCall {
        var response: String?
        var index: Int
    }

    /// The calls open now, by item id (or call id when the wire names no item).
    private var openCalls: [String: OpenCall] = [:]
    /// How many calls each response in progress has begun, by response id.
    private var callCounts: [String: Int] = [:]

    public static var carriesManyReplies: Bool { true }

    /// A decoder at the start of a session.
    package init() {}

    public mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        let event = try LLMWireJSON.decode(Event.self, from: message, format: Self.format)
        guard let type = event.type else {
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): an event without a 'type'")
        }
        guard let kind = Self.kinds[type] else {
            deltas.append(.unrecognized(LLMWireJSON.unrecognizedName(type, message)))
            return
        }
        switch kind {
        case .ignored:
            break
        case .text:
            let delta = try Self.field(event.delta, "delta", of: type)
            if !delta.isEmpty { deltas.append(.text(delta)) }
        case .audio:
            let delta = try Self.field(event.delta, "delta", of: type)
            guard let bytes = Data(base64Encoded: delta) else {
                throw RealtimeError(.protocolViolation, detail: "\(Self.format): \(type) whose 'delta' is not base64")
            }
            if !bytes.isEmpty { deltas.append(.audio(LLMAudioDelta(itemID: event.itemID, bytes: [UInt8](bytes)))) }
        case .itemAdded:
            try added(Self.field(event.item, "item", of: type), response: event.responseID, into: &deltas)
        case .itemDone:
            try done(Self.field(event.item, "item", of: type), response: event.responseID, into: &deltas)
        case .arguments:
            let delta = try Self.field(event.delta, "delta", of: type)
            let key = try Self.field(event.itemID ?? event.callID, "item_id", of: type)
            let call = try call(for: key, response: event.responseID)
            deltas.append(.toolCall(LLMToolCallDelta(index: call, argumentsFragment: delta)))
        case .responseDone:
            finish(try Self.field(event.response, "response", of: type), message, into: &deltas)
        case .error:
            let error = event.error
            deltas.append(.error(LLMWireJSON.streamError(
                format: Self.format, type: error?.code ?? error?.type, message: message, body: error?.message)))
        }
    }

    /// `response.output_item.added`: a function call's id and name.
    private mutating func added(_ item: Item, response: String?, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard item.type == "function_call" else {
            // A message is what the text and audio deltas fill; any other item (an MCP call,
            // a newer kind) is named and skipped.
            if item.type != "message" { deltas.append(.unrecognized(LLMWireJSON.identifier(item.type) ?? "")) }
            return
        }
        let key = try Self.field(item.id ?? item.callID, "item.id", of: "response.output_item.added")
        let call = try call(for: key, response: response)
        deltas.append(.toolCall(LLMToolCallDelta(
            index: call, id: item.callID, name: item.name, argumentsFragment: item.arguments ?? "")))
    }

    /// `response.output_item.done`: a function call is complete; one whose `added` was not
    /// seen arrives whole.
    private mutating func done(_ item: Item, response: String?, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        guard item.type == "function_call", let key = item.id ?? item.callID else { return }
        if let open = openCalls.removeValue(forKey: key) {
            deltas.append(.toolCallEnd(index: open.index))
            return
        }
        let call = try open(key, response: response)
        openCalls[key] = nil
        deltas.append(.toolCall(LLMToolCallDelta(
            index: call, id: item.callID, name: item.name, argumentsFragment: item.arguments ?? "")))
        deltas.append(.toolCallEnd(index: call))
    }

    /// The open call of item `key`, or a new call of `response`.
    private mutating func call(for key: String, response: String?) throws(RealtimeError) -> Int {
        if let known = openCalls[key] { return known.index }
        return try open(key, response: response)
    }

    /// Numbers a new call of `response`.
    private mutating func open(_ key: String, response: String?) throws(RealtimeError) -> Int {
        guard openCalls.count < Self.maxOpenToolCalls else {
            throw RealtimeError(.protocolViolation, detail: "\(Self.format): more than \(Self.maxOpenToolCalls) function calls open at once")
        }
        let responseKey = response ?? ""
        let index = callCounts[responseKey, default: 0]
        callCounts[responseKey] = index + 1
        openCalls[key] = OpenCall(response: response, index: index)
        return index
    }

    /// `response.done`: the finish (or the failure) and the usage; the response's calls end.
    private mutating func finish(_ response: Response, _ message: Message, into deltas: inout [LLMDelta]) {
        let responseKey = response.id ?? ""
        callCounts[responseKey] = nil
        openCalls = openCalls.filter { ($0.value.response ?? "") != responseKey }
        let status = response.status ?? "completed"
        if status == "failed" {
            if let usage = response.usage { deltas.append(.usage(usage.counts)) }
            let error = response.statusDetails?.error
            deltas.append(.error(LLMWireJSON.streamError(
                format: Self.format, type: error?.code ?? error?.type ?? "response_failed", message: message,
                body: error?.message)))
            return
        }
        let reason = status == "completed" ? status : response.statusDetails?.reason ?? status
        if let usage = response.usage { deltas.append(.usage(usage.counts)) }
        deltas.append(.finish(LLMFinishReason(reason)))
    }

    private static func field<T>(_ value: T?, _ name: String, of type: String) throws(RealtimeError) -> T {
        guard let value else { throw RealtimeError(.protocolViolation, detail: "\(format): \(type) without '\(name)'") }
        return value
    }
}

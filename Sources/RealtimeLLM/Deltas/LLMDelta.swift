import RealtimeCore

/// One piece of a model's reply, decoded from one event of a wire format by an
/// ``LLMStreamDecoder``; an ``LLMTranscript`` puts the pieces together.
///
/// The order of deltas is the order of the stream. A reply that ends normally carries a
/// ``finish(_:)``; ``usage(_:)`` may come before or after it (OpenAI sends its usage chunk
/// after the finish, Anthropic both in one `message_delta`). An ``error(_:)`` is always the
/// last delta of a reply.
public enum LLMDelta: Sendable, Hashable {
    /// A fragment of the reply's text, in stream order. Fragments are whole Unicode scalars:
    /// the SSE layer decodes UTF-8 at event boundaries, so a code point split across reads
    /// arrives whole.
    case text(String)
    /// A fragment of a tool (function) call.
    case toolCall(LLMToolCallDelta)
    /// The tool call at this index is complete: no more fragments follow for it (Anthropic
    /// `content_block_stop`; for OpenAI, sent before the finish, which ends every call).
    case toolCallEnd(index: Int)
    /// The model stopped, and why (`stop`, `end_turn`, `length`, `tool_calls`, …).
    case finish(LLMFinishReason)
    /// Token counts so far. Later values replace earlier ones field by field (Anthropic's
    /// counts are cumulative).
    case usage(LLMUsage)
    /// An event the decoder does not recognise, skipped: an OpenAI-compatible server's
    /// `{"object":"keepalive"}`, an Anthropic event type newer than this version. Carries
    /// the event's type (OpenAI `object`, Anthropic `type`) when it is a plain identifier,
    /// else an empty string; never the data. Nothing of the reply is lost, and the reply
    /// goes on; ``LLMTranscript/unrecognizedEvents`` counts them.
    case unrecognized(String)
    /// The reply failed: an error object inside the stream (code `stream_error`), an event
    /// that the format cannot decode (`protocol_violation`), or a failure of the connection
    /// that carried it (`http_status`, `truncated`, …). Nothing follows it.
    case error(RealtimeError)
}

extension LLMDelta {
    /// Merges `next` into `delta` when the two read as one: two text fragments, or two
    /// argument fragments of the same tool call where the second brings no id or name.
    /// Returns false (and leaves `delta` alone) otherwise. Used by the UI-rate adapter, so
    /// a batch holds one text delta per run of text, never one per token.
    public static func merge(_ delta: inout LLMDelta, _ next: LLMDelta) -> Bool {
        // Each branch empties `delta` before appending, so the payload it held is uniquely
        // referenced and grows in place (a run of tokens costs amortised O(1) per token).
        switch next {
        case .text(let more):
            guard case .text(var text) = delta else { return false }
            delta = .text("")
            text += more
            delta = .text(text)
            return true
        case .toolCall(let more):
            guard case .toolCall(var call) = delta, call.index == more.index, more.id == nil, more.name == nil
            else { return false }
            delta = .text("")
            call.argumentsFragment += more.argumentsFragment
            delta = .toolCall(call)
            return true
        default:
            return false
        }
    }

    /// The text of a ``text(_:)`` delta, else nil.
    public var text: String? {
        if case .text(let t) = self { return t }
        return nil
    }
}

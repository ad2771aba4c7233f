import RealtimeCore

/// One piece of a model's reply, decoded from one event of a wire format by an
/// ``LLMStreamDecoder``; an ``LLMTranscript`` puts the pieces together.
///
/// The order of deltas is the order of the stream. A reply that ends normally carries a
/// `finish(_:)`; `usage(_:)` may come before or after it (OpenAI sends its usage chunk
/// after the finish, Anthropic both in one `message_delta`). An `error(_:)` is always the
/// last delta of a reply.
///
/// The answer (`text(_:)`), the model's reasoning (`reasoning(_:)`), a refusal
/// (`refusal(_:)`) and the sources it cites (`citation(_:)`) are apart, so an app can
/// show each its own way. The table in the LLM streaming article says which wire field of
/// which format fills each case.
public enum LLMDelta: Sendable, Hashable {
    /// A fragment of the reply's text (the answer), in stream order. Fragments are whole
    /// Unicode scalars: the SSE layer decodes UTF-8 at event boundaries, so a code point split
    /// across reads arrives whole.
    case text(String)
    /// A fragment of the model's reasoning: raw reasoning text, a summary of it, a block's
    /// signature or redacted (encrypted) reasoning, by block (see ``LLMReasoningDelta``).
    /// Never part of `text(_:)`.
    case reasoning(LLMReasoningDelta)
    /// A fragment of a refusal: the text the model wrote instead of an answer when it
    /// declined (OpenAI `refusal`, Responses `response.refusal.delta`).
    case refusal(String)
    /// A source the reply cites (OpenAI and Responses annotations, Anthropic
    /// `citations_delta`, Gemini citation and grounding metadata), in stream order.
    case citation(LLMCitation)
    /// A fragment of the reply's audio, decoded (OpenAI Realtime audio replies; their
    /// transcript is the reply's `text(_:)`).
    case audio(LLMAudioDelta)
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
    /// `{"object":"keepalive"}`, an Anthropic event type newer than this version, a
    /// Responses web search event, a content block or output item of a kind the decoder does
    /// not decode (server tools, images, code execution). Carries what the wire calls it:
    /// the data's `type` (OpenAI `object`), else the SSE `event:` type, else the kind of the
    /// block, item or part, when it is a plain identifier; an empty string when there is
    /// none. Never the data. The reply goes on; ``LLMTranscript/unrecognizedEvents`` counts
    /// them.
    case unrecognized(String)
    /// The reply failed: an error object inside the stream (code `stream_error`), an event
    /// that the format cannot decode (`protocol_violation`), or a failure of the connection
    /// that carried it (`http_status`, `truncated`, …). Nothing of its reply follows it. In
    /// an OpenAI Realtime session (``LLMStreamDecoder/carriesManyReplies``) the next reply
    /// may.
    case error(RealtimeError)
}

extension LLMDelta {
    /// Merges `next` into `delta` when the two read as one: two text fragments, two refusal
    /// fragments, two reasoning fragments of the same block and kind, two audio fragments of
    /// the same item, or two argument
    /// fragments of the same tool call where the second brings no id or name. Returns false
    /// (and leaves `delta` alone) otherwise. Used by the UI-rate adapter, so a batch holds
    /// one delta per run of text, reasoning or audio, never one per token.
    package static func merge(_ delta: inout LLMDelta, _ next: LLMDelta) -> Bool {
        // Each branch empties `delta` before appending, so the payload it held is uniquely
        // referenced and grows in place (a run of tokens costs amortised O(1) per token).
        switch next {
        case .text(let more):
            guard case .text(var text) = delta else { return false }
            delta = .text("")
            text += more
            delta = .text(text)
            return true
        case .refusal(let more):
            guard case .refusal(var text) = delta else { return false }
            delta = .text("")
            text += more
            delta = .refusal(text)
            return true
        case .reasoning(let more):
            guard case .reasoning(var part) = delta, part.index == more.index, part.kind == more.kind else { return false }
            delta = .text("")
            part.fragment += more.fragment
            delta = .reasoning(part)
            return true
        case .audio(let more):
            guard case .audio(var audio) = delta, audio.itemID == more.itemID else { return false }
            delta = .text("")
            audio.bytes += more.bytes
            delta = .audio(audio)
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

    /// The text of a `text(_:)` delta, else nil.
    public var text: String? {
        if case .text(let t) = self { return t }
        return nil
    }
}

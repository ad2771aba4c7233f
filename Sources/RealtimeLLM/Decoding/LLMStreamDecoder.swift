import RealtimeCore

/// Turns the events of one reply, in order, into ``LLMDelta``s: one wire format's rules.
///
/// The SDK ships ``OpenAIChatDecoder`` (`.openAI`), ``OpenAIResponsesDecoder``
/// (`.openAIResponses`), ``AnthropicMessagesDecoder`` (`.anthropic`), ``GeminiDecoder``
/// (`.gemini`) and, over WebSocket, ``OpenAIRealtimeDecoder`` (`.openAIRealtime`); conform your own type to read another format. The contract:
///
/// - A decoder is a value made fresh for each reply (it keeps per-reply state, such as
///   which content block is a tool call), fed every message of that reply once, in order.
/// - `decode` appends zero or more deltas for one message. Events that carry nothing for
///   the reply (keep-alives, metadata, the format's end marker when the client delivers it)
///   append nothing. `terminator` names the end marker, so the client can stop there.
/// - An error object of the format is reported as an ``LLMDelta/error(_:)`` delta with code
///   `stream_error`, not thrown; nothing of the reply follows it.
/// - A message the format cannot make sense of (not JSON, wrong shape) throws a
///   `RealtimeError` (`protocol_violation`) whose description says what was wrong without
///   quoting the data; the reply ends there, with what was decoded before.
/// - Never crash on input, and keep no more than a reply's worth of state.
public protocol LLMStreamDecoder: Sendable {
    /// The message that ends a reply in this format, for the client's configuration
    /// (`RealtimeClient.Configuration.terminator`): the client then stops at it even when
    /// the server keeps the connection open, and reports a reply without it as `truncated`.
    /// nil (the default) when the format has none: a clean end of the stream ends the reply.
    static var terminator: StreamTerminator? { get }

    /// Whether the stream carries many replies, one after another, and outlives them (an
    /// OpenAI Realtime session: each response ends with its own ``LLMDelta/finish(_:)`` or
    /// ``LLMDelta/error(_:)``, and an `error` event leaves the session open). When true, a
    /// `stream_error` delta does not end ``LLMDeltaSequence``; false (the default) for a
    /// format whose stream is one reply.
    static var carriesManyReplies: Bool { get }

    /// Decodes one message of the reply, appending its deltas to `deltas`.
    mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError)
}

extension LLMStreamDecoder {
    public static var terminator: StreamTerminator? { nil }
    public static var carriesManyReplies: Bool { false }
}

extension LLMStreamDecoder {
    /// The deltas of one message (see `decode(_:into:)`).
    public mutating func decode(_ message: Message) throws(RealtimeError) -> [LLMDelta] {
        var deltas: [LLMDelta] = []
        try decode(message, into: &deltas)
        return deltas
    }
}

extension LLMStreamDecoder where Self == OpenAIChatDecoder {
    /// OpenAI chat completions (and the many servers that copy them): `data:` chunks of
    /// `chat.completion.chunk` objects, ended by `data: [DONE]`.
    public static var openAI: OpenAIChatDecoder { OpenAIChatDecoder() }
}

extension LLMStreamDecoder where Self == AnthropicMessagesDecoder {
    /// The Anthropic Messages stream: named events from `message_start` to `message_stop`.
    public static var anthropic: AnthropicMessagesDecoder { AnthropicMessagesDecoder() }
}

extension LLMStreamDecoder where Self == OpenAIResponsesDecoder {
    /// The OpenAI Responses API (`/v1/responses`): named events from `response.created` to
    /// `response.completed` (or `response.incomplete`, `response.failed`, `error`), each
    /// with a `sequence_number`.
    public static var openAIResponses: OpenAIResponsesDecoder { OpenAIResponsesDecoder() }
}

extension LLMStreamDecoder where Self == GeminiDecoder {
    /// Gemini `streamGenerateContent?alt=sse`: `data:` events of `GenerateContentResponse`
    /// objects; the chunk whose candidate carries a `finishReason` ends the reply (see
    /// ``GeminiDecoder/terminator``).
    public static var gemini: GeminiDecoder { GeminiDecoder() }
}

extension LLMStreamDecoder where Self == OpenAIRealtimeDecoder {
    /// The OpenAI Realtime API over WebSocket (`wss://api.openai.com/v1/realtime`): a
    /// session of server events in which each response streams text, audio and its
    /// transcript, and function call arguments, and ends with `response.done`.
    public static var openAIRealtime: OpenAIRealtimeDecoder { OpenAIRealtimeDecoder() }
}

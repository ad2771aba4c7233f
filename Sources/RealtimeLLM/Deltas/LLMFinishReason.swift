/// Why the model stopped, exactly as the wire format said it (OpenAI `finish_reason`,
/// Anthropic `stop_reason`). The formats use different words for the same thing
/// (`stop` / `end_turn`, `tool_calls` / `tool_use`), so compare with the constants of the
/// format you use; unknown reasons are kept as they are.
public struct LLMFinishReason: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The reason as the wire spelled it.
    public var rawValue: String

    /// A reason spelled `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    // OpenAI chat completions.
    /// OpenAI: the model finished its message or hit a stop sequence.
    public static let stop: LLMFinishReason = "stop"
    /// OpenAI: `max_tokens` reached (the text is cut).
    public static let length: LLMFinishReason = "length"
    /// OpenAI: the model called one or more tools.
    public static let toolCalls: LLMFinishReason = "tool_calls"
    /// OpenAI: content was omitted by a filter.
    public static let contentFilter: LLMFinishReason = "content_filter"

    // Anthropic Messages.
    /// Anthropic: the model finished its turn.
    public static let endTurn: LLMFinishReason = "end_turn"
    /// Anthropic: `max_tokens` reached (the text is cut).
    public static let maxTokens: LLMFinishReason = "max_tokens"
    /// Anthropic: one of the request's stop sequences was generated.
    public static let stopSequence: LLMFinishReason = "stop_sequence"
    /// Anthropic: the model called a tool.
    public static let toolUse: LLMFinishReason = "tool_use"
}

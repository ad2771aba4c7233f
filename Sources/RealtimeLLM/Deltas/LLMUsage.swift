/// Token counts of a reply, as far as the server told them (nil: not sent).
///
/// OpenAI sends one usage object in a last chunk (when the request asks for it with
/// `stream_options: {"include_usage": true}`); Anthropic sends the input count in
/// `message_start` and cumulative output counts in `message_delta`. ``merged(with:)``
/// combines them the way ``LLMTranscript`` does.
public struct LLMUsage: Sendable, Hashable {
    /// Tokens of the prompt (OpenAI `prompt_tokens`, Anthropic `input_tokens`).
    public var inputTokens: Int?
    /// Tokens generated so far (OpenAI `completion_tokens`, Anthropic `output_tokens`).
    public var outputTokens: Int?
    /// OpenAI `total_tokens` when sent.
    public var totalTokens: Int?

    public init(inputTokens: Int? = nil, outputTokens: Int? = nil, totalTokens: Int? = nil) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.totalTokens = totalTokens
    }

    /// `self` with every field that `newer` has replaced by `newer`'s value: the counts are
    /// cumulative, so the latest one wins.
    public func merged(with newer: LLMUsage) -> LLMUsage {
        LLMUsage(
            inputTokens: newer.inputTokens ?? inputTokens,
            outputTokens: newer.outputTokens ?? outputTokens,
            totalTokens: newer.totalTokens ?? totalTokens)
    }
}

/// Token counts of a reply, as far as the server told them (nil: not sent).
///
/// OpenAI chat completions send one usage object in a last chunk (when the request asks for
/// it with `stream_options: {"include_usage": true}`); the Responses API sends it in
/// `response.completed` (or `response.incomplete`); Anthropic sends the input count in
/// `message_start` and cumulative output counts in `message_delta`; Gemini sends cumulative
/// `usageMetadata` with its chunks. ``LLMTranscript`` combines them: a newer count replaces
/// an older one, a count the newer object leaves out is kept.
///
/// The counts are the wire's, not normalised: OpenAI's and the Responses API's output
/// counts include the reasoning tokens, Gemini's `candidatesTokenCount` does not (its
/// `thoughtsTokenCount` comes on top); Anthropic's `input_tokens` leaves out the tokens read
/// from the cache, OpenAI's and Gemini's prompt counts include them.
public struct LLMUsage: Sendable, Hashable {
    /// Tokens of the prompt (OpenAI `prompt_tokens`, Responses and Anthropic `input_tokens`,
    /// Gemini `promptTokenCount`).
    public var inputTokens: Int?
    /// Tokens generated so far (OpenAI `completion_tokens`, Responses and Anthropic
    /// `output_tokens`, Gemini `candidatesTokenCount`).
    public var outputTokens: Int?
    /// The total when sent (OpenAI and Responses `total_tokens`, Gemini `totalTokenCount`).
    public var totalTokens: Int?
    /// Tokens spent on reasoning (OpenAI `completion_tokens_details.reasoning_tokens`,
    /// Responses `output_tokens_details.reasoning_tokens`, Gemini `thoughtsTokenCount`).
    public var reasoningTokens: Int?
    /// Prompt tokens read from the provider's cache (OpenAI
    /// `prompt_tokens_details.cached_tokens`, Responses `input_tokens_details.cached_tokens`,
    /// Anthropic `cache_read_input_tokens`, Gemini `cachedContentTokenCount`).
    public var cachedInputTokens: Int?

    /// Usage figures; for tests and decoders of your own.
    public init(
        inputTokens: Int? = nil, outputTokens: Int? = nil, totalTokens: Int? = nil, reasoningTokens: Int? = nil,
        cachedInputTokens: Int? = nil
    ) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.totalTokens = totalTokens
        self.reasoningTokens = reasoningTokens
        self.cachedInputTokens = cachedInputTokens
    }

    /// `self` with every field that `newer` has replaced by `newer`'s value: the counts are
    /// cumulative, so the latest one wins.
    package func merged(with newer: LLMUsage) -> LLMUsage {
        LLMUsage(
            inputTokens: newer.inputTokens ?? inputTokens,
            outputTokens: newer.outputTokens ?? outputTokens,
            totalTokens: newer.totalTokens ?? totalTokens,
            reasoningTokens: newer.reasoningTokens ?? reasoningTokens,
            cachedInputTokens: newer.cachedInputTokens ?? cachedInputTokens)
    }
}

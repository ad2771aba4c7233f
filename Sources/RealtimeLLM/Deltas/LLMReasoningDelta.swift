/// A fragment of the model's reasoning as it streams, kept apart from the answer's text.
///
/// Reasoning comes in blocks (an Anthropic `thinking` block, a Responses reasoning summary
/// part, a run of Gemini thought parts or of `reasoning_content`); `index` says which. Each
/// fragment has a `kind`, because the formats send things that are not all text to show:
/// a signature vouches for a block and must go back to the provider unchanged, redacted
/// reasoning is encrypted, and a summary is not what the model thought but what it wrote
/// about it. Fragments of one block and kind, concatenated in stream order, are the whole
/// value (``LLMTranscript`` keeps them as ``LLMReasoning`` blocks).
public struct LLMReasoningDelta: Sendable, Hashable {
    /// What a reasoning fragment is.
    public enum Kind: Sendable, Hashable {
        /// The model's reasoning as text: Anthropic `thinking_delta`, Responses
        /// `response.reasoning_text.delta`, OpenAI-compatible `reasoning_content` and
        /// `reasoning` (DeepSeek, vLLM, OpenRouter).
        case text
        /// A summary of the reasoning, written for people: Responses
        /// `response.reasoning_summary_text.delta`, Gemini thought parts (`thought: true`,
        /// which the Gemini API documents as thought summaries).
        case summary
        /// An opaque signature of the block (Anthropic `signature_delta`, Gemini
        /// `thoughtSignature`): not for display; send it back unchanged with the block in the
        /// next turn, or the provider rejects or forgets the reasoning.
        case signature
        /// Reasoning the provider encrypted (Anthropic `redacted_thinking`'s `data`): opaque
        /// data, not for display; send it back unchanged in the next turn.
        case redacted
    }

    /// Which reasoning block of the reply this belongs to: 0 for the first block, 1 for the
    /// second, … in the order the blocks began (for Anthropic, the ordinal of the thinking
    /// block among the reply's thinking and redacted blocks, not its content-block index).
    public var index: Int
    /// What `fragment` is.
    public var kind: Kind
    /// The next piece of the block's value of this `kind` (a signature or redacted data
    /// usually arrives whole, in one fragment).
    public var fragment: String

    /// A reasoning fragment; for tests and decoders of your own.
    public init(index: Int, kind: Kind, fragment: String) {
        self.index = index
        self.kind = kind
        self.fragment = fragment
    }
}

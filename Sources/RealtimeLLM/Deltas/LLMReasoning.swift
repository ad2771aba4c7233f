/// A reasoning block as an ``LLMTranscript`` has put it together from its
/// ``LLMReasoningDelta`` fragments.
///
/// To continue an Anthropic conversation that used extended thinking with tools, send each
/// block back in the assistant turn as the API requires: a block with a `signature` as
/// `{"type": "thinking", "thinking": text, "signature": signature}`, a block with
/// `redactedData` as `{"type": "redacted_thinking", "data": redactedData}`.
public struct LLMReasoning: Sendable, Hashable {
    /// The block's index (``LLMReasoningDelta/index``).
    public var index: Int
    /// The reasoning text (``LLMReasoningDelta/Kind/text`` fragments, concatenated).
    public var text: String
    /// The summary (``LLMReasoningDelta/Kind/summary`` fragments, concatenated).
    public var summary: String
    /// The block's signature, empty when it has none: opaque, to send back unchanged.
    public var signature: String
    /// The redacted (encrypted) reasoning, empty when the block is not redacted: opaque, to
    /// send back unchanged.
    public var redactedData: String

    /// A reasoning block; for tests and decoders of your own.
    package init(index: Int, text: String = "", summary: String = "", signature: String = "", redactedData: String = "") {
        self.index = index
        self.text = text
        self.summary = summary
        self.signature = signature
        self.redactedData = redactedData
    }
}

/// What the owner of the current reply (`LLMReplies`) delivers: the deltas of one
/// generation that gathered since its previous batch, and the reply so far.
public struct LLMReplyBatch: Sendable {
    /// The reply this batch belongs to: the number `LLMReplies.start` returned for it.
    public var generation: Int
    /// The deltas since the previous batch of this generation, in order, consecutive text
    /// merged. Empty in the last batch.
    public var deltas: [LLMDelta]
    /// Tool calls these deltas completed (each call once, in index order).
    public var completedToolCalls: [LLMToolCall]
    /// The whole reply so far, these deltas included: render ``LLMTranscript/text``.
    public var transcript: LLMTranscript
    /// Whether the reply is over. Then ``LLMTranscript/error`` says why it failed, or is nil
    /// when it finished. A reply that was superseded or cancelled gets no last batch.
    public var isLast: Bool

    /// A batch.
    package init(
        generation: Int, deltas: [LLMDelta], completedToolCalls: [LLMToolCall], transcript: LLMTranscript, isLast: Bool
    ) {
        self.generation = generation
        self.deltas = deltas
        self.completedToolCalls = completedToolCalls
        self.transcript = transcript
        self.isLast = isLast
    }
}

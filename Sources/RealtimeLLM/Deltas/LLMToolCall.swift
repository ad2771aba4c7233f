/// A tool call as an ``LLMTranscript`` has put it together from its fragments.
public struct LLMToolCall: Sendable, Hashable {
    /// 0 for the reply's first tool call, 1 for the second, …
    public var index: Int
    /// The call's id (empty when the stream never sent one).
    public var id: String
    /// The tool's name (empty when the stream never sent one).
    public var name: String
    /// The arguments' JSON text: every fragment of this call, concatenated in stream order.
    /// Complete once `isComplete` is true; the SDK does not parse it.
    public var arguments: String
    /// Whether the stream said this call is over (see ``LLMDelta/toolCallEnd(index:)``, or
    /// the reply's finish). A reply cut short can leave a call incomplete.
    public var isComplete: Bool

    /// A tool call; for tests and decoders of your own.
    public init(index: Int, id: String = "", name: String = "", arguments: String = "", isComplete: Bool = false) {
        self.index = index
        self.id = id
        self.name = name
        self.arguments = arguments
        self.isComplete = isComplete
    }
}

/// A fragment of a tool call as it streams: the first fragment of a call usually brings its
/// `id` and `name`, later ones only pieces of the arguments' JSON text.
public struct LLMToolCallDelta: Sendable, Hashable {
    /// Which tool call of the reply this belongs to: 0 for the first call, 1 for the second, …
    /// (OpenAI's `tool_calls[].index`; for Anthropic, the ordinal of the `tool_use` block
    /// among the reply's tool calls, not its content-block index).
    public var index: Int
    /// The call's id (`call_…`, `toolu_…`), when this fragment carries it.
    public var id: String?
    /// The tool's name, when this fragment carries it.
    public var name: String?
    /// The next piece of the arguments' JSON text (may be empty). The pieces of one call,
    /// concatenated in order, are the complete JSON.
    public var argumentsFragment: String

    /// A tool call fragment; for tests and decoders of your own.
    public init(index: Int, id: String? = nil, name: String? = nil, argumentsFragment: String = "") {
        self.index = index
        self.id = id
        self.name = name
        self.argumentsFragment = argumentsFragment
    }
}

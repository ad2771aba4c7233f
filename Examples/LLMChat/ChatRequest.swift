/// The request body of one turn: the conversation so far, in the shape both the OpenAI chat
/// completions and the Anthropic Messages APIs accept (plus each one's own fields).
struct ChatRequest: Encodable {
    struct Turn: Encodable {
        var role: String
        var content: String
    }

    struct StreamOptions: Encodable {
        var includeUsage = true
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    var model: String
    var messages: [Turn]
    var stream = true
    /// Anthropic requires it; OpenAI accepts it (as a deprecated alias) too.
    var maxTokens: Int? = 1024
    /// OpenAI: ask for the usage chunk at the end.
    var streamOptions: StreamOptions?

    enum CodingKeys: String, CodingKey {
        case model, messages, stream
        case maxTokens = "max_tokens"
        case streamOptions = "stream_options"
    }
}

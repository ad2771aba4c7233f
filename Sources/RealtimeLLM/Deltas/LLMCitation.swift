/// A source the reply cites, as the wire format describes it.
///
/// The formats cite in different shapes (a URL and a title, a file id, a character range of
/// a document, a web search result), so the fields that most have are named here and the
/// whole citation object is kept in `json` for the rest.
public struct LLMCitation: Sendable, Hashable {
    /// What the wire calls this kind of citation: the object's `type` (`url_citation`,
    /// `file_citation`, `char_location`, `web_search_result_location`, …); for Gemini, which
    /// has none, `citationSource` (`citationMetadata.citationSources[]`) or the grounding
    /// chunk's kind (`web`, `retrievedContext`, …).
    public var type: String
    /// The cited resource's address, when the citation has one (`url`, Gemini `uri`).
    public var url: String?
    /// The cited resource's title, when the citation has one (`title`, Anthropic
    /// `document_title`).
    public var title: String?
    /// The passage cited, when the citation quotes it (Anthropic `cited_text`).
    public var citedText: String?
    /// The citation object as JSON text, re-encoded (keys sorted, no spaces): ranges, file
    /// ids, document indexes and whatever else its kind carries.
    public var json: String

    /// A citation; for tests and decoders of your own.
    public init(type: String, url: String? = nil, title: String? = nil, citedText: String? = nil, json: String = "{}") {
        self.type = type
        self.url = url
        self.title = title
        self.citedText = citedText
        self.json = json
    }
}

extension LLMCitation {
    /// The citation a wire object describes: its `type`, and the common fields read from the
    /// object itself or, in OpenAI's chat shape (`{"type": "url_citation", "url_citation":
    /// {...}}`), from the member named by the type. nil for a value that is not an object.
    init?(wire value: LLMWireValue, type fallbackType: String? = nil) {
        guard case .object = value else { return nil }
        let type = value["type"] ?? fallbackType ?? ""
        let fields = value.member(type).flatMap { if case .object = $0 { $0 } else { nil } } ?? value
        self.init(
            type: type, url: fields["url"] ?? fields["uri"], title: fields["title"] ?? fields["document_title"],
            citedText: fields["cited_text"], json: value.json)
    }
}

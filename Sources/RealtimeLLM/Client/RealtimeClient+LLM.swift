extension RealtimeClient {
    /// The reply this client streams, decoded into ``LLMDelta``s by `format` (`.openAI`,
    /// `.anthropic`, or your own ``LLMStreamDecoder``): see ``LLMDeltaSequence``.
    ///
    /// ```swift
    /// let client = try RealtimeClient(url: url, configuration: .llm(json: request, bearerToken: key))
    /// var reply = LLMTranscript()
    /// for await delta in client.deltas(format: .openAI) {
    ///     reply.apply(delta)
    ///     if let text = delta.text { print(text, terminator: "") }
    /// }
    /// if let error = reply.error { print("failed: \(error)") }
    /// ```
    ///
    /// Iterating it iterates `events` (so iterate only one of them). Configure the client as
    /// a finite LLM request whose terminator is the format's
    /// (`Configuration.llm(body:headers:terminator:)-([UInt8],_,_)` with
    /// ``LLMStreamDecoder/terminator``): the reply then ends at the format's end marker even
    /// when the server keeps the connection open, and a reply cut before it ends with a
    /// `truncated` error.
    public func deltas<Decoder: LLMStreamDecoder>(format: Decoder) -> LLMDeltaSequence<Decoder> {
        LLMDeltaSequence(client: self, decoder: format)
    }
}

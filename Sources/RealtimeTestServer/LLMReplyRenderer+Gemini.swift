/// Gemini `streamGenerateContent?alt=sse`: `data:` events of `GenerateContentResponse`
/// objects; no end marker.
extension LLMReplyRenderer {
    func geminiChunk(_ parts: String, finish: String? = nil, usage: String? = nil) -> String {
        let finishReason = finish.map { #","finishReason":"\#($0)""# } ?? ""
        let usageMetadata = usage.map { #","usageMetadata":\#($0)"# } ?? ""
        return #"data: {"candidates":[{"content":{"parts":[\#(parts)],"role":"model"}\#(finishReason),"index":0}]\#(usageMetadata),"modelVersion":"test-model","responseId":"gemini-test"}"#
            + "\n\n"
    }

    func geminiEvents() -> [String] {
        var events = LLMReplyOptions.reasoningPieces.prefix(reasoningCount).map {
            geminiChunk(#"{"text":\#(LLMReplyOptions.json($0)),"thought":true}"#)
        }
        events += texts.enumerated().map { n, text in
            let signature = options.reasoning && n == 0 ? #","thoughtSignature":"\#(LLMReplyOptions.reasoningSignature)""# : ""
            return geminiChunk(#"{"text":\#(LLMReplyOptions.json(text))\#(signature)}"#)
        }
        if options.unknownEvent {
            events.insert(geminiChunk(#"{"executableCode":{"language":"PYTHON","code":"print(1)"}}"#), at: min(reasoningCount + 1, events.count))
        }
        if options.reply == .error {
            return events + ["data: " + errorBody(status: 503) + "\n\n"]
        }
        if options.reply == .tools {
            let calls = LLMReplyOptions.toolCalls.map { #"{"functionCall":{"name":"\#($0.name)","args":\#($0.arguments.joined())}}"# }
            events.append(geminiChunk(calls.joined(separator: ",")))
        }
        if options.end == .truncate { return events }
        let usage = #"{"promptTokenCount":\#(Self.inputTokens),"candidatesTokenCount":\#(outputTokens),"thoughtsTokenCount":\#(reasoningCount),"totalTokenCount":\#(Self.inputTokens + outputTokens + reasoningCount)}"#
        return events + [geminiChunk(#"{"text":""}"#, finish: "STOP", usage: usage)]
    }
}

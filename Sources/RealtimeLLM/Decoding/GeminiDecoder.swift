import RealtimeCore

/// Decodes the Gemini API stream (`models/{model}:streamGenerateContent?alt=sse`): every
/// event's data is a `GenerateContentResponse`. The stream has no end marker of its own: the
/// chunk whose candidate carries a `finishReason` (with the usage) is the reply's last, so it is
/// the ``terminator`` (delivered), and a stream that ends before it is `truncated`.
///
/// - `candidates[].content.parts[]` with `text` → ``LLMDelta/text(_:)``; with `text` and
///   `thought: true` → ``LLMDelta/reasoning(_:)`` of kind `summary` (the Gemini API returns
///   thought summaries, not raw thoughts); a run of thought parts is one block, and a
///   thought after text or a call starts the next;
/// - a part's `thoughtSignature` → ``LLMDelta/reasoning(_:)`` of kind `signature`, in the
///   latest reasoning block (a block of its own when no thought came before). Gemini wants
///   it back on the part that carried it (the first function call, or the last part);
/// - a part with a `functionCall` → ``LLMDelta/toolCall(_:)`` with the call's `id` (when
///   sent), `name` and its whole `args` as JSON text (keys sorted), then
///   ``LLMDelta/toolCallEnd(index:)``: Gemini sends each call whole;
/// - a part of another kind (`inlineData`, `executableCode`, `codeExecutionResult`, …) →
///   ``LLMDelta/unrecognized(_:)`` with the kind's member name;
/// - `candidates[].finishReason` → ``LLMDelta/finish(_:)`` as sent (`STOP`, `MAX_TOKENS`,
///   `SAFETY`, `RECITATION`, `MALFORMED_FUNCTION_CALL`, …);
/// - `candidates[].citationMetadata.citationSources[]` → ``LLMDelta/citation(_:)`` of type
///   `citationSource` (its `uri` as the URL); `groundingMetadata.groundingChunks[]` →
///   citations whose type is the chunk's kind (`web`, with its `uri` and `title`);
/// - `usageMetadata` → ``LLMDelta/usage(_:)`` (`promptTokenCount`, `candidatesTokenCount`,
///   `totalTokenCount`, `thoughtsTokenCount`, `cachedContentTokenCount`);
/// - `promptFeedback.blockReason` (the prompt was blocked, no candidates) →
///   ``LLMDelta/error(_:)`` with code `stream_error` and the reason (`SAFETY`, `OTHER`, …)
///   in the detail; an `{"error": {...}}` object → the same with its `status`;
/// - a data with none of these → ``LLMDelta/unrecognized(_:)``.
///
/// Only the first candidate (`index` 0, the one a request without `candidateCount`
/// produces) is followed. A data that is not a JSON object, or a known field of the
/// wrong type, throws `protocol_violation`.
public struct GeminiDecoder: LLMStreamDecoder {
    /// The `candidates[].index` this decoder follows.
    private let candidate = 0
    private var toolCount = 0
    private var reasoningCount = 0
    /// The block thought parts go to now; nil after a text or call part.
    private var openBlock: Int?

    /// A decoder at the start of a reply.
    package init() {}

    /// Delivered: the chunk in which the followed candidate (`index` 0) carries a
    /// `finishReason` ends the reply, and the decoder reads the finish and the usage it
    /// carries. A stream that ends cleanly before such a chunk is `truncated`.
    public static var terminator: StreamTerminator? {
        .matching(delivered: true) { finishes($0) }
    }

    /// Whether `message`'s data has a candidate 0 with a `finishReason` string, read without
    /// decoding it (this runs on the I/O thread for every message).
    static func finishes(_ message: Message) -> Bool {
        message.withPayloadBytes { buffer in
            var finished = false
            LLMJSONScanner.members(of: buffer) { key, candidates in
                guard LLMJSONScanner.equal(key, "candidates") else { return true }
                LLMJSONScanner.elements(of: candidates) { candidate in
                    var index = 0
                    var reason = false
                    LLMJSONScanner.members(of: UnsafeBufferPointer(rebasing: candidate)) { key, value in
                        if LLMJSONScanner.equal(key, "finishReason") { reason = value.first == UInt8(ascii: "\"") }
                        if LLMJSONScanner.equal(key, "index") { index = LLMJSONScanner.integer(value) ?? -1 }
                        return true
                    }
                    finished = reason && index == 0
                    return !finished
                }
                return false
            }
            return finished
        }
    }

    public mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        let chunk = try LLMWireJSON.decode(Chunk.self, from: message, format: "gemini")
        if let error = chunk.error {
            let type = error.status ?? error.code.map { String($0) }
            deltas.append(.error(LLMWireJSON.streamError(format: "gemini", type: type, message: message)))
            return
        }
        if let reason = chunk.promptFeedback?.blockReason {
            deltas.append(.error(LLMWireJSON.streamError(format: "gemini", type: reason, message: message)))
            return
        }
        guard chunk.candidates != nil || chunk.usageMetadata != nil || chunk.promptFeedback != nil else {
            deltas.append(.unrecognized(LLMWireJSON.unrecognizedName(nil, message)))
            return
        }
        for c in chunk.candidates ?? [] where (c.index ?? 0) == candidate {
            for part in c.content?.parts ?? [] { decode(part, into: &deltas) }
            if let reason = c.finishReason { deltas.append(.finish(LLMFinishReason(reason))) }
            for source in c.citationMetadata?.citationSources ?? [] {
                if let citation = LLMCitation(wire: source, type: "citationSource") { deltas.append(.citation(citation)) }
            }
            for grounding in c.groundingMetadata?.groundingChunks ?? [] {
                guard case .object(let members) = grounding, let kind = members.keys.min() else { continue }
                if let citation = LLMCitation(wire: grounding, type: kind) { deltas.append(.citation(citation)) }
            }
        }
        if let usage = chunk.usageMetadata { deltas.append(.usage(usage.counts)) }
    }

    private mutating func decode(_ part: Part, into deltas: inout [LLMDelta]) {
        if let text = part.text, part.thought == true {
            let block = openBlock ?? newBlock()
            openBlock = block
            if !text.isEmpty { deltas.append(.reasoning(LLMReasoningDelta(index: block, kind: .summary, fragment: text))) }
        } else if let text = part.text {
            openBlock = nil
            if !text.isEmpty { deltas.append(.text(text)) }
        } else if let call = part.functionCall {
            openBlock = nil
            let index = toolCount
            toolCount += 1
            deltas.append(.toolCall(LLMToolCallDelta(index: index, id: call.id, name: call.name, argumentsFragment: call.args?.json ?? "{}")))
            deltas.append(.toolCallEnd(index: index))
        } else if let kind = part.otherKind {
            openBlock = nil
            deltas.append(.unrecognized(LLMWireJSON.identifier(kind) ?? ""))
        }
        if let signature = part.thoughtSignature, !signature.isEmpty {
            let block = reasoningCount > 0 ? reasoningCount - 1 : newBlock()
            deltas.append(.reasoning(LLMReasoningDelta(index: block, kind: .signature, fragment: signature)))
        }
    }

    private mutating func newBlock() -> Int {
        reasoningCount += 1
        return reasoningCount - 1
    }
}

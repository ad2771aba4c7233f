import RealtimeJSON
import Foundation
import Realtime
import RealtimeLLM

/// Prints a reply as `rtcat llm` lines (see ``LLMOptions/help``) while putting it together
/// in an ``LLMTranscript``.
struct LLMReplyPrinter {
    private var writer = JSONLineWriter()
    private(set) var transcript: LLMTranscript

    init(maxReplyBytes: Int = LLMTranscript().maxBytes) {
        transcript = LLMTranscript(maxBytes: maxReplyBytes)
    }

    /// Prints the deltas of one batch (a single delta without `--coalesce`): a line per text,
    /// reasoning or refusal delta, per citation, per skipped event, per tool call it completed. Returns false once
    /// the reply has failed: nothing after the failure is printed (a delta beyond the size
    /// limit is not), and the caller stops reading.
    @discardableResult
    mutating func print(_ deltas: [LLMDelta]) -> Bool {
        defer { writer.flush() }
        for delta in deltas {
            let completed = transcript.apply(delta)
            if transcript.error != nil { return false }
            switch delta {
            case .text(let text): writer.write(["kind": .string("delta"), "text": .string(text)])
            case .reasoning(let part): writer.write(Self.reasoningFields(part))
            case .refusal(let text): writer.write(["kind": .string("refusal"), "text": .string(text)])
            case .citation(let citation): writer.write(Self.citationFields(citation))
            case .audio(let audio): writer.write(["kind": .string("audio"), "bytes": .int(audio.bytes.count)])
            case .unrecognized(let event): writer.write(["kind": .string("unrecognized"), "event": .string(event)])
            default: break
            }
            for call in completed {
                writer.write([
                    "kind": .string("tool_call"), "index": .int(call.index), "id": .string(call.id),
                    "name": .string(call.name), "arguments": .string(call.arguments),
                ])
            }
        }
        return true
    }

    /// Prints the end (`finished` or `error`); returns the exit status.
    mutating func finish() -> Int32 {
        defer { writer.flush() }
        if let error = transcript.error {
            writer.write(Self.errorFields(error))
            return Subcommand.failure
        }
        var fields: [(key: String, value: JSONValue)] = [("kind", .string("finished"))]
        if let reason = transcript.finishReason { fields.append(("reason", .string(reason.rawValue))) }
        fields.append(("text", .string(transcript.text)))
        let reasoning = transcript.reasoning.map { $0.text + $0.summary }.joined()
        if !reasoning.isEmpty { fields.append(("reasoning", .string(reasoning))) }
        if !transcript.refusal.isEmpty { fields.append(("refusal", .string(transcript.refusal))) }
        if let usage = transcript.usage { fields.append(("usage", Self.usage(usage))) }
        writer.write(fields)
        return Subcommand.success
    }

    static func usage(_ usage: LLMUsage) -> JSONValue {
        var fields: [String: JSONValue] = [:]
        fields["inputTokens"] = usage.inputTokens.map(JSONValue.int)
        fields["outputTokens"] = usage.outputTokens.map(JSONValue.int)
        fields["totalTokens"] = usage.totalTokens.map(JSONValue.int)
        fields["reasoningTokens"] = usage.reasoningTokens.map(JSONValue.int)
        fields["cachedInputTokens"] = usage.cachedInputTokens.map(JSONValue.int)
        return .object(fields)
    }

    static func reasoningFields(_ part: LLMReasoningDelta) -> [(key: String, value: JSONValue)] {
        let type: String
        switch part.kind {
        case .text: type = "text"
        case .summary: type = "summary"
        case .signature: type = "signature"
        case .redacted: type = "redacted"
        }
        return [("kind", .string("reasoning")), ("block", .int(part.index)), ("type", .string(type)), ("text", .string(part.fragment))]
    }

    static func citationFields(_ citation: LLMCitation) -> [(key: String, value: JSONValue)] {
        var fields: [(key: String, value: JSONValue)] = [("kind", .string("citation")), ("type", .string(citation.type))]
        if let url = citation.url { fields.append(("url", .string(url))) }
        if let title = citation.title { fields.append(("title", .string(title))) }
        if let text = citation.citedText { fields.append(("citedText", .string(text))) }
        return fields
    }

    /// `code`, `message` (the error's description: never a secret) and, when known, the HTTP
    /// `status`, the response `body` excerpt and `retryAfter` in seconds, from the error or
    /// the cause it wraps (`retries_exhausted` after a 503, …), and that `cause`'s description.
    static func errorFields(_ error: RealtimeError) -> [(key: String, value: JSONValue)] {
        var fields: [(key: String, value: JSONValue)] = [
            ("kind", .string("error")), ("code", .string(error.code.description)), ("message", .string(error.description)),
        ]
        var causes: [RealtimeError] = []
        var next = error.underlying
        while let cause = next, causes.count < 8 {
            causes.append(cause)
            next = cause.underlying
        }
        let chain = [error] + causes
        if let status = chain.lazy.compactMap(\.status).first { fields.append(("status", .int(status))) }
        if let body = chain.lazy.compactMap(\.bodyExcerpt).first { fields.append(("body", .string(body))) }
        if let retryAfter = chain.lazy.compactMap(\.retryAfter).first {
            let seconds = ConnectEventFormat.seconds(retryAfter)
            fields.append(("retryAfter", .double(seconds)))
        }
        if let cause = causes.first { fields.append(("cause", .string(cause.description))) }
        return fields
    }
}

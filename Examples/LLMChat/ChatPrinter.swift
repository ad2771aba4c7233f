import Foundation
import Realtime

/// What LLMChat writes: the conversation on standard output (unbuffered, so streamed text
/// shows as it comes), notes on standard error.
enum ChatPrinter {
    static func write(_ text: String) {
        guard !text.isEmpty else { return }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data("LLMChat: \(text)\n".utf8))
    }

    static func error(_ text: String) {
        note(text)
    }

    /// `[finished: stop · 12 in / 10 out tokens]`.
    static func describeEnd(_ transcript: LLMTranscript) -> String {
        var parts = ["finished: \(transcript.finishReason?.rawValue ?? "end of stream")"]
        if let usage = transcript.usage {
            parts.append("\(usage.inputTokens.map(String.init) ?? "?") in / \(usage.outputTokens.map(String.init) ?? "?") out tokens")
        }
        return "[" + parts.joined(separator: " · ") + "]"
    }

    /// `[error: http_status (429) · status 429 · retry after 7 s · body: {…}]`, with the cause
    /// of a wrapping error when it has one.
    static func describe(_ error: RealtimeError) -> String {
        var parts = ["error: \(error)"]
        if let status = error.status { parts.append("status \(status)") }
        if let retryAfter = error.retryAfter { parts.append("retry after \(retryAfter.components.seconds) s") }
        if let body = error.bodyExcerpt { parts.append("body: \(body)") }
        return "[" + parts.joined(separator: " · ") + "]"
    }
}

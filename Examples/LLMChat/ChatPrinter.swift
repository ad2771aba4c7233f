import Foundation
import Realtime
import RealtimeLLM

/// What LLMChat writes: the conversation on standard output (unbuffered, so streamed text
/// shows as it comes), notes on standard error.
enum ChatPrinter {
    static func write(_ text: String) {
        guard !text.isEmpty else { return }
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Whether standard output is a terminal (then reasoning is dimmed with ANSI codes).
    static let isTerminal = isatty(STDOUT_FILENO) == 1

    /// What comes before a run of reasoning: `(thinking) `, dimmed on a terminal.
    static var reasoningStart: String { (isTerminal ? "\u{1B}[2m" : "") + "(thinking) " }

    /// What ends a run of reasoning: the dimming's end and a new line before the answer.
    static var reasoningEnd: String { (isTerminal ? "\u{1B}[0m" : "") + "\n" }

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

    /// `[error: http_status (429) · status 429 · retry after 7 s · body: {…}]`, then the same
    /// for the cause of a wrapping error (`retries_exhausted` after a 503: `caused by …`).
    static func describe(_ error: RealtimeError) -> String {
        var text = "[" + details(error)
        var cause = error.underlying
        var depth = 0
        while let c = cause, depth < 8 {
            text += " · caused by " + details(c)
            cause = c.underlying
            depth += 1
        }
        return text + "]"
    }

    private static func details(_ error: RealtimeError) -> String {
        var parts = ["error: \(error)"]
        if let status = error.status { parts.append("status \(status)") }
        if let retryAfter = error.retryAfter { parts.append("retry after \(retryAfter.components.seconds) s") }
        if let body = error.bodyExcerpt { parts.append("body: \(body)") }
        return parts.joined(separator: " · ")
    }
}

import RealtimeCore

/// A reply put together from its deltas: the whole text, the tool calls with their
/// arguments concatenated in order (per index), the finish reason, the usage and the error.
///
/// ```swift
/// var reply = LLMTranscript()
/// for await delta in client.deltas(format: .openAI) {
///     for call in reply.apply(delta) { run(call) }   // each tool call once, when complete
/// }
/// print(reply.text, reply.finishReason ?? "-")
/// ```
///
/// Bounded: the text and the arguments together may hold ``maxBytes`` UTF-8 bytes; a delta
/// that would go beyond is not applied and the transcript fails with `message_too_large`
/// (nothing else is applied after an error).
public struct LLMTranscript: Sendable, Hashable {
    /// The reply's text so far: every text delta, in order.
    public private(set) var text = ""
    /// Tool calls so far, by index (complete or not).
    public private(set) var toolCalls: [LLMToolCall] = []
    /// The finish reason, once the model stopped.
    public private(set) var finishReason: LLMFinishReason?
    /// Token counts, merged as they arrived (see ``LLMUsage/merged(with:)``).
    public private(set) var usage: LLMUsage?
    /// Why the reply failed, when it did; the transcript takes nothing after it.
    public private(set) var error: RealtimeError?
    /// The most text and argument bytes the transcript keeps. Default 64 MiB: far above any
    /// model's output limit, low enough that a server streaming forever cannot exhaust memory.
    public let maxBytes: Int
    private var byteCount = 0

    public init(maxBytes: Int = 64 << 20) {
        self.maxBytes = maxBytes
    }

    /// Whether the stream said the model finished (a finish reason) and nothing failed.
    public var isFinished: Bool { finishReason != nil && error == nil }

    /// Applies one delta. Returns the tool calls this delta completed, in index order: the
    /// one a ``LLMDelta/toolCallEnd(index:)`` names, or, on a ``LLMDelta/finish(_:)``, every
    /// call still open (a format without per-call ends). Each call is returned once.
    @discardableResult
    public mutating func apply(_ delta: LLMDelta) -> [LLMToolCall] {
        guard error == nil else { return [] }
        switch delta {
        case .text(let fragment):
            guard reserve(fragment.utf8.count) else { return [] }
            text += fragment
        case .toolCall(let fragment):
            guard reserve(fragment.argumentsFragment.utf8.count + (fragment.id?.utf8.count ?? 0)
                + (fragment.name?.utf8.count ?? 0)) else { return [] }
            add(fragment)
        case .toolCallEnd(let index):
            return complete { $0.index == index }
        case .finish(let reason):
            finishReason = reason
            return complete { _ in true }
        case .usage(let counts):
            usage = usage.map { $0.merged(with: counts) } ?? counts
        case .error(let failure):
            error = failure
        }
        return []
    }

    /// Applies every delta of `deltas` in order; returns the tool calls they completed.
    @discardableResult
    public mutating func apply<S: Sequence>(contentsOf deltas: S) -> [LLMToolCall] where S.Element == LLMDelta {
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += apply(delta) }
        return completed
    }

    /// Records `failure` as the reply's error unless it already has one (an end of stream
    /// that reports the cause of a cut, after what the stream delivered).
    public mutating func fail(_ failure: RealtimeError) {
        if error == nil { error = failure }
    }

    private mutating func reserve(_ bytes: Int) -> Bool {
        guard byteCount + bytes <= maxBytes else {
            error = RealtimeError(.messageTooLarge, detail: "the reply exceeded \(maxBytes) bytes")
            return false
        }
        byteCount += bytes
        return true
    }

    private mutating func add(_ fragment: LLMToolCallDelta) {
        let position: Int
        if let i = toolCalls.firstIndex(where: { $0.index == fragment.index }) {
            position = i
        } else {
            position = toolCalls.firstIndex(where: { $0.index > fragment.index }) ?? toolCalls.endIndex
            toolCalls.insert(LLMToolCall(index: fragment.index), at: position)
        }
        // The first id and name win: OpenAI-compatible servers differ in whether later
        // fragments repeat them, never in what the first one says.
        if toolCalls[position].id.isEmpty, let id = fragment.id { toolCalls[position].id = id }
        if toolCalls[position].name.isEmpty, let name = fragment.name { toolCalls[position].name = name }
        toolCalls[position].arguments += fragment.argumentsFragment
    }

    private mutating func complete(_ which: (LLMToolCall) -> Bool) -> [LLMToolCall] {
        var completed: [LLMToolCall] = []
        for i in toolCalls.indices where !toolCalls[i].isComplete && which(toolCalls[i]) {
            toolCalls[i].isComplete = true
            completed.append(toolCalls[i])
        }
        return completed
    }
}

import RealtimeCore

/// A reply put together from its deltas: the whole text, the reasoning by block, a refusal,
/// the citations, the tool calls with their arguments concatenated in order (per index), the
/// finish reason, the usage and the error.
///
/// ```swift
/// var reply = LLMTranscript()
/// for await delta in client.deltas(format: .openAI) {
///     for call in reply.apply(delta) { run(call) }   // each tool call once, when complete
/// }
/// print(reply.text, reply.finishReason ?? "-")
/// ```
///
/// Bounded: the text, reasoning, refusal, audio, citations and arguments together may hold
/// `maxBytes` bytes (text counted in UTF-8); a delta
/// that would go beyond is not applied and the transcript fails with `message_too_large`
/// (nothing else is applied after an error).
public struct LLMTranscript: Sendable, Hashable {
    /// The reply's text so far (the answer): every text delta, in order; no reasoning.
    public private(set) var text = ""
    /// The reasoning blocks so far, in the order they began, each with its text, summary,
    /// signature or redacted data: what an app shows apart from the answer, and what it
    /// sends back in the next turn where the provider asks for it (Anthropic extended
    /// thinking with tools; see ``LLMReasoning``).
    public private(set) var reasoning: [LLMReasoning] = []
    /// The refusal so far: every refusal delta, in order (empty when the model did not
    /// decline).
    public private(set) var refusal = ""
    /// The reply's audio so far: the bytes of every audio delta, in order (empty for a text
    /// reply).
    public private(set) var audio: [UInt8] = []
    /// The sources the reply cited so far, in stream order.
    public private(set) var citations: [LLMCitation] = []
    /// Tool calls so far, by index (complete or not).
    public private(set) var toolCalls: [LLMToolCall] = []
    /// The finish reason, once the model stopped.
    public private(set) var finishReason: LLMFinishReason?
    /// Token counts, merged as they arrived (a newer count replaces an older one; one left out is kept).
    public private(set) var usage: LLMUsage?
    /// Events the decoder skipped as ``LLMDelta/unrecognized(_:)`` (keep-alives, newer
    /// event types): 0 for a reply in the format the decoder knows.
    public private(set) var unrecognizedEvents = 0
    /// Why the reply failed, when it did; the transcript takes nothing after it.
    public private(set) var error: RealtimeError?
    /// The most bytes the transcript keeps: text, reasoning, refusal, audio, citations and
    /// tool calls together (text in UTF-8). Default 64 MiB: far above any model's output
    /// limit, low enough that a server streaming forever cannot exhaust memory.
    public let maxBytes: Int
    private var byteCount = 0
    /// Where each call index is in `toolCalls`: a fragment finds its call in O(1).
    private var positionByIndex: [Int: Int] = [:]
    /// Where each reasoning block index is in `reasoning`.
    private var reasoningPositionByIndex: [Int: Int] = [:]
    /// Positions in `toolCalls` before which every call is complete, so a finish does not
    /// revisit the calls that ended one by one.
    private var firstOpenPosition = 0

    /// An empty transcript that holds at most `maxBytes` of text, arguments, reasoning and audio (default 64 MiB).
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
        case .reasoning(let part):
            guard reserve(part.fragment.utf8.count) else { return [] }
            add(part)
        case .refusal(let fragment):
            guard reserve(fragment.utf8.count) else { return [] }
            refusal += fragment
        case .audio(let fragment):
            guard reserve(fragment.bytes.count) else { return [] }
            audio += fragment.bytes
        case .citation(let citation):
            guard reserve(Self.byteCount(citation)) else { return [] }
            citations.append(citation)
        case .toolCall(let fragment):
            guard reserve(fragment.argumentsFragment.utf8.count + (fragment.id?.utf8.count ?? 0)
                + (fragment.name?.utf8.count ?? 0)) else { return [] }
            add(fragment)
        case .toolCallEnd(let index):
            guard let position = positionByIndex[index] else { return [] }
            return complete(at: position).map { [$0] } ?? []
        case .finish(let reason):
            finishReason = reason
            return completeAll()
        case .usage(let counts):
            usage = usage.map { $0.merged(with: counts) } ?? counts
        case .unrecognized:
            unrecognizedEvents += 1
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

    private mutating func reserve(_ bytes: Int) -> Bool {
        guard byteCount + bytes <= maxBytes else {
            error = RealtimeError(.messageTooLarge, detail: "the reply exceeded \(maxBytes) bytes")
            return false
        }
        byteCount += bytes
        return true
    }

    private static func byteCount(_ citation: LLMCitation) -> Int {
        citation.type.utf8.count + citation.json.utf8.count + (citation.url?.utf8.count ?? 0)
            + (citation.title?.utf8.count ?? 0) + (citation.citedText?.utf8.count ?? 0)
    }

    private mutating func add(_ part: LLMReasoningDelta) {
        let position: Int
        if let known = reasoningPositionByIndex[part.index] {
            position = known
        } else {
            position = reasoning.endIndex
            reasoning.append(LLMReasoning(index: part.index))
            reasoningPositionByIndex[part.index] = position
        }
        switch part.kind {
        case .text: reasoning[position].text += part.fragment
        case .summary: reasoning[position].summary += part.fragment
        case .signature: reasoning[position].signature += part.fragment
        case .redacted: reasoning[position].redactedData += part.fragment
        }
    }

    private mutating func add(_ fragment: LLMToolCallDelta) {
        let position = positionByIndex[fragment.index] ?? insertCall(index: fragment.index)
        // The first id and name win: OpenAI-compatible servers differ in whether later
        // fragments repeat them, never in what the first one says.
        if toolCalls[position].id.isEmpty, let id = fragment.id { toolCalls[position].id = id }
        if toolCalls[position].name.isEmpty, let name = fragment.name { toolCalls[position].name = name }
        toolCalls[position].arguments += fragment.argumentsFragment
    }

    /// Adds an empty call, keeping `toolCalls` in index order. Calls arrive in index order
    /// from every known server, which appends in O(1); a call that comes before others costs
    /// a shift of the ones after it.
    private mutating func insertCall(index: Int) -> Int {
        var position = toolCalls.endIndex
        if let last = toolCalls.last, last.index > index {
            var low = 0
            var high = toolCalls.count
            while low < high {
                let mid = (low + high) / 2
                if toolCalls[mid].index < index { low = mid + 1 } else { high = mid }
            }
            position = low
            for later in toolCalls[position...] { positionByIndex[later.index, default: 0] += 1 }
            firstOpenPosition = min(firstOpenPosition, position)
        }
        toolCalls.insert(LLMToolCall(index: index), at: position)
        positionByIndex[index] = position
        return position
    }

    /// Marks the call at `position` complete; nil when it already was.
    private mutating func complete(at position: Int) -> LLMToolCall? {
        guard !toolCalls[position].isComplete else { return nil }
        toolCalls[position].isComplete = true
        while firstOpenPosition < toolCalls.count, toolCalls[firstOpenPosition].isComplete { firstOpenPosition += 1 }
        return toolCalls[position]
    }

    private mutating func completeAll() -> [LLMToolCall] {
        var completed: [LLMToolCall] = []
        for i in firstOpenPosition..<toolCalls.count where !toolCalls[i].isComplete {
            toolCalls[i].isComplete = true
            completed.append(toolCalls[i])
        }
        firstOpenPosition = toolCalls.count
        return completed
    }
}

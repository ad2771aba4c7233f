import RealtimeCore
import RealtimeLLM
import RealtimeTestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct LLMTranscriptTests {
    @Test func argumentsConcatenateInOrderPerIndexWhateverTheInterleaving() {
        var transcript = LLMTranscript()
        let deltas: [LLMDelta] = [
            .toolCall(LLMToolCallDelta(index: 2, id: "c", name: "third", argumentsFragment: "[")),
            .toolCall(LLMToolCallDelta(index: 0, id: "a", name: "first", argumentsFragment: "{")),
            .text("thinking "),
            .toolCall(LLMToolCallDelta(index: 2, argumentsFragment: "3")),
            .toolCall(LLMToolCallDelta(index: 0, id: "ignored", name: "ignored", argumentsFragment: "}")),
            .toolCall(LLMToolCallDelta(index: 2, argumentsFragment: "]")),
            .text("aloud"),
        ]
        #expect(transcript.apply(contentsOf: deltas).isEmpty)
        #expect(transcript.text == "thinking aloud")
        #expect(transcript.toolCalls == [
            LLMToolCall(index: 0, id: "a", name: "first", arguments: "{}"),
            LLMToolCall(index: 2, id: "c", name: "third", arguments: "[3]"),
        ])
    }

    @Test func eachCallIsReportedCompleteOnce() {
        var transcript = LLMTranscript()
        transcript.apply(.toolCall(LLMToolCallDelta(index: 0, id: "a", name: "f", argumentsFragment: "{}")))
        transcript.apply(.toolCall(LLMToolCallDelta(index: 1, id: "b", name: "g", argumentsFragment: "{}")))
        #expect(transcript.apply(.toolCallEnd(index: 1)).map(\.id) == ["b"])
        #expect(transcript.apply(.toolCallEnd(index: 1)).isEmpty)
        // The finish completes what is still open (a format without per-call ends).
        #expect(transcript.apply(.finish(.toolCalls)).map(\.id) == ["a"])
        #expect(transcript.toolCalls.allSatisfy { $0.isComplete })
        #expect(transcript.isFinished)
    }

    @Test func aCutReplyKeepsItsIncompleteCall() {
        var transcript = LLMTranscript()
        transcript.apply(.toolCall(LLMToolCallDelta(index: 0, id: "a", name: "f", argumentsFragment: #"{"x":"#)))
        transcript.apply(.error(RealtimeError(.truncated)))
        #expect(transcript.toolCalls == [LLMToolCall(index: 0, id: "a", name: "f", arguments: #"{"x":"#, isComplete: false)])
        #expect(transcript.error?.code == .truncated)
        #expect(!transcript.isFinished)
    }

    @Test func nothingIsAppliedAfterAnError() {
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: [.text("a"), .error(RealtimeError(.streamError)), .text("b"), .finish(.stop)])
        #expect(transcript.text == "a")
        #expect(transcript.finishReason == nil)
        #expect(transcript.error?.code == .streamError)
        transcript.apply(.error(RealtimeError(.network)))
        #expect(transcript.error?.code == .streamError, "the first error stays")
    }

    @Test func unrecognizedEventsAreCountedAndChangeNothingElse() {
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: [.text("a"), .unrecognized("keepalive"), .text("b"), .unrecognized(""), .finish(.stop)])
        #expect(transcript.text == "ab")
        #expect(transcript.unrecognizedEvents == 2)
        #expect(transcript.isFinished)
    }

    /// Calls that arrive in any order (some before calls already seen), fragments
    /// interleaved, ends in any order: the transcript agrees with a plain model of it, each
    /// call is completed once, and the finish completes what is left.
    @Test(arguments: 1...5) func manyInterleavedCallsMatchAModel(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var transcript = LLMTranscript()
        var model: [Int: LLMToolCall] = [:]
        var completedOnce: Set<Int> = []
        var indexes = Array(0..<2000)
        // Mostly ascending (as servers send them), with a few calls brought forward.
        for _ in 0..<50 { indexes.swapAt(Int.random(in: 0..<2000, using: &random), Int.random(in: 0..<2000, using: &random)) }
        var open: [Int] = []
        var next = 0
        for step in 0..<12000 {
            let delta: LLMDelta
            if next < indexes.count, open.count < 6 || Bool.random(using: &random) && open.count < 40 {
                let index = indexes[next]
                next += 1
                open.append(index)
                delta = .toolCall(LLMToolCallDelta(index: index, id: "id\(index)", name: "n\(index)", argumentsFragment: "\(step)"))
                model[index, default: LLMToolCall(index: index, id: "id\(index)", name: "n\(index)")].arguments += "\(step)"
            } else if !open.isEmpty, Int.random(in: 0..<3, using: &random) == 0 {
                let index = open.remove(at: Int.random(in: 0..<open.count, using: &random))
                delta = .toolCallEnd(index: index)
                model[index]?.isComplete = true
            } else if let index = open.randomElement(using: &random) {
                delta = .toolCall(LLMToolCallDelta(index: index, argumentsFragment: ",\(step)"))
                model[index]?.arguments += ",\(step)"
            } else {
                continue
            }
            for call in transcript.apply(delta) {
                #expect(completedOnce.insert(call.index).inserted, "\(call.index) completed twice")
            }
        }
        for call in transcript.apply(.finish(.toolCalls)) {
            #expect(completedOnce.insert(call.index).inserted, "\(call.index) completed twice")
        }
        for key in model.keys { model[key]?.isComplete = true }
        #expect(transcript.toolCalls == model.keys.sorted().map { model[$0]! })
        #expect(completedOnce == Set(model.keys))
    }

    @Test func usageMergesFieldByField() {
        var transcript = LLMTranscript()
        transcript.apply(.usage(LLMUsage(inputTokens: 10, outputTokens: 1)))
        transcript.apply(.usage(LLMUsage(outputTokens: 5)))
        transcript.apply(.usage(LLMUsage(outputTokens: 9, totalTokens: 19)))
        #expect(transcript.usage == LLMUsage(inputTokens: 10, outputTokens: 9, totalTokens: 19))
    }

    /// A transcript holds 64 MiB by default.
    @Test func theDefaultLimitIsSixtyFourMebibytes() {
        #expect(LLMTranscript().maxBytes == 64 << 20)
    }

    @Test func theByteLimitEndsTheReplyWithATypedError() {
        var transcript = LLMTranscript(maxBytes: 8)
        transcript.apply(.text("1234"))
        transcript.apply(.text("ü56"))  // 4 bytes: exactly at the limit
        #expect(transcript.error == nil)
        transcript.apply(.text("7"))
        #expect(transcript.text == "1234ü56")
        #expect(transcript.error?.code == .messageTooLarge)
        #expect(transcript.error?.detail == "the reply exceeded 8 bytes")
    }

    @Test func mergeJoinsTextAndFragmentsOfOneCallOnly() {
        func merged(_ a: LLMDelta, _ b: LLMDelta) -> LLMDelta? {
            var a = a
            return LLMDelta.merge(&a, b) ? a : nil
        }
        #expect(merged(.text("a"), .text("b")) == .text("ab"))
        #expect(merged(.toolCall(LLMToolCallDelta(index: 0, id: "x", argumentsFragment: "{")), .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: "}")))
            == .toolCall(LLMToolCallDelta(index: 0, id: "x", argumentsFragment: "{}")))
        // A fragment that names its call starts something new; another index is another call.
        #expect(merged(.toolCall(LLMToolCallDelta(index: 0)), .toolCall(LLMToolCallDelta(index: 0, id: "y"))) == nil)
        #expect(merged(.toolCall(LLMToolCallDelta(index: 0)), .toolCall(LLMToolCallDelta(index: 1))) == nil)
        #expect(merged(.text("a"), .finish(.stop)) == nil)
        #expect(merged(.finish(.stop), .text("a")) == nil)
        #expect(merged(.usage(LLMUsage()), .usage(LLMUsage())) == nil)
        // Reasoning runs merge per block and kind, refusal runs like text; nothing across cases.
        let thought = { (index: Int, kind: LLMReasoningDelta.Kind, text: String) in
            LLMDelta.reasoning(LLMReasoningDelta(index: index, kind: kind, fragment: text))
        }
        #expect(merged(thought(0, .text, "a"), thought(0, .text, "b")) == thought(0, .text, "ab"))
        #expect(merged(thought(1, .summary, "a"), thought(1, .summary, "b")) == thought(1, .summary, "ab"))
        #expect(merged(thought(0, .text, "a"), thought(0, .signature, "S")) == nil)
        #expect(merged(thought(0, .text, "a"), thought(1, .text, "b")) == nil)
        #expect(merged(.text("a"), thought(0, .text, "b")) == nil)
        #expect(merged(thought(0, .text, "a"), .text("b")) == nil)
        #expect(merged(.refusal("I can"), .refusal("not")) == .refusal("I cannot"))
        #expect(merged(.text("a"), .refusal("b")) == nil)
        #expect(merged(.citation(LLMCitation(type: "a")), .citation(LLMCitation(type: "b"))) == nil)
    }

    /// Reasoning stays out of the text, block by block, each kind in its own field; refusals
    /// and citations are kept apart too.
    @Test func reasoningRefusalAndCitationsAreKeptApart() {
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: [
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "Let me ")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "think.")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .signature, fragment: "EqQB")),
            .reasoning(LLMReasoningDelta(index: 1, kind: .redacted, fragment: "EmwKAhgB")),
            .text("Answer"),
            .reasoning(LLMReasoningDelta(index: 2, kind: .summary, fragment: "**Plan**")),
            .citation(LLMCitation(type: "url_citation", url: "https://example.com", title: "Example")),
            .refusal("I can't "),
            .refusal("say more."),
        ])
        #expect(transcript.text == "Answer")
        #expect(transcript.reasoning == [
            LLMReasoning(index: 0, text: "Let me think.", signature: "EqQB"),
            LLMReasoning(index: 1, redactedData: "EmwKAhgB"),
            LLMReasoning(index: 2, summary: "**Plan**"),
        ])
        #expect(transcript.refusal == "I can't say more.")
        #expect(transcript.citations == [LLMCitation(type: "url_citation", url: "https://example.com", title: "Example")])
    }

    /// Reasoning, refusals and citations count against the byte limit like text.
    @Test(arguments: [
        LLMDelta.reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "12345")),
        .reasoning(LLMReasoningDelta(index: 0, kind: .redacted, fragment: "12345")),
        .refusal("12345"),
        .citation(LLMCitation(type: "w", json: "{\"a\":1}")),
    ])
    func everyKindCountsAgainstTheLimit(delta: LLMDelta) {
        var transcript = LLMTranscript(maxBytes: 8)
        transcript.apply(.text("1234"))
        transcript.apply(delta)
        #expect(transcript.error?.code == .messageTooLarge)
        #expect(transcript.reasoning.isEmpty && transcript.refusal.isEmpty && transcript.citations.isEmpty)
    }

    /// Merging never changes what a transcript makes of the deltas (seeded random streams).
    @Test(arguments: 1...20) func mergingPreservesTheTranscript(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var deltas: [LLMDelta] = []
        for _ in 0..<Int.random(in: 1...60, using: &rng) {
            switch Int.random(in: 0..<13, using: &rng) {
            case 0..<5: deltas.append(.text(["a", "é", "🌍", "", " "].randomElement(using: &rng)!))
            case 10:
                let kind = [LLMReasoningDelta.Kind.text, .summary, .signature, .redacted].randomElement(using: &rng)!
                deltas.append(.reasoning(LLMReasoningDelta(
                    index: Int.random(in: 0...2, using: &rng), kind: kind, fragment: ["a", "é", ""].randomElement(using: &rng)!)))
            case 11: deltas.append(.refusal(["no", " ", "é"].randomElement(using: &rng)!))
            case 12: deltas.append(.citation(LLMCitation(type: "t\(Int.random(in: 0...2, using: &rng))")))
            case 5..<8:
                let index = Int.random(in: 0...2, using: &rng)
                let first = Bool.random(using: &rng)
                deltas.append(.toolCall(LLMToolCallDelta(
                    index: index, id: first ? "id\(index)" : nil, name: first ? "f\(index)" : nil,
                    argumentsFragment: ["{", "}", "1", ""].randomElement(using: &rng)!)))
            case 8: deltas.append(.toolCallEnd(index: Int.random(in: 0...2, using: &rng)))
            case 9: deltas.append(.usage(LLMUsage(outputTokens: Int.random(in: 0...9, using: &rng))))
            default: break
            }
        }
        var coalesced: [LLMDelta] = []
        for delta in deltas {
            if coalesced.isEmpty || !LLMDelta.merge(&coalesced[coalesced.count - 1], delta) { coalesced.append(delta) }
        }
        var plain = LLMTranscript()
        var merged = LLMTranscript()
        let plainCompleted = plain.apply(contentsOf: deltas)
        let mergedCompleted = merged.apply(contentsOf: coalesced)
        #expect(plain == merged)
        #expect(plainCompleted == mergedCompleted)
        #expect(coalesced.count <= deltas.count)
    }
}

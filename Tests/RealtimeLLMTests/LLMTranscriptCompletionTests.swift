import RealtimeCore
import RealtimeLLM
import Testing

/// What ``LLMTranscript/apply(_:)`` returns and keeps for calls that arrive out of index
/// order, for ends it cannot match, and for audio.
@Suite(.timeLimit(.minutes(1))) struct LLMTranscriptCompletionTests {
    static func call(_ index: Int, _ arguments: String = "{}") -> LLMDelta {
        .toolCall(LLMToolCallDelta(index: index, id: "call_\(index)", name: "f\(index)", argumentsFragment: arguments))
    }

    /// The finish returns the calls still open in index order, though they began out of order and one ended before.
    @Test func theFinishCompletesTheOpenCallsInIndexOrder() {
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: [Self.call(3), Self.call(1), Self.call(4), Self.call(2)])
        #expect(transcript.apply(.toolCallEnd(index: 3)).map(\.index) == [3])
        #expect(transcript.apply(.toolCallEnd(index: 1)).map(\.index) == [1])
        transcript.apply(Self.call(0))
        #expect(transcript.apply(.finish(.toolCalls)).map(\.index) == [0, 2, 4])
        #expect(transcript.toolCalls.map(\.index) == [0, 1, 2, 3, 4])
        #expect(transcript.toolCalls.allSatisfy { $0.isComplete })
        #expect(transcript.apply(.finish(.toolCalls)).isEmpty, "each call once")
    }

    /// An end for an index that began no call completes nothing and adds no call.
    @Test func anEndWithoutItsCallChangesNothing() {
        var transcript = LLMTranscript()
        transcript.apply(Self.call(0))
        #expect(transcript.apply(.toolCallEnd(index: 7)).isEmpty)
        #expect(transcript.toolCalls == [LLMToolCall(index: 0, id: "call_0", name: "f0", arguments: "{}")])
        #expect(transcript.apply(.finish(.toolCalls)).map(\.index) == [0])
    }

    /// A call's first id and name win: a later fragment that repeats them differently changes neither.
    @Test func theFirstIDAndNameWin() {
        var transcript = LLMTranscript()
        transcript.apply(.toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"{"a""#)))
        transcript.apply(.toolCall(LLMToolCallDelta(index: 0, id: "call_a", name: "first", argumentsFragment: ":")))
        transcript.apply(.toolCall(LLMToolCallDelta(index: 0, id: "call_b", name: "second", argumentsFragment: "1}")))
        #expect(transcript.toolCalls == [LLMToolCall(index: 0, id: "call_a", name: "first", arguments: #"{"a":1}"#)])
    }

    /// Audio fragments are kept in order, count against the byte limit, and merge only within one item.
    @Test func audioIsKeptInOrderBoundedAndMergedPerItem() {
        var transcript = LLMTranscript(maxBytes: 6)
        transcript.apply(contentsOf: [
            .audio(LLMAudioDelta(itemID: "item_1", bytes: [1, 2])), .text("ab"), .audio(LLMAudioDelta(itemID: "item_1", bytes: [3])),
        ])
        #expect(transcript.audio == [1, 2, 3] && transcript.text == "ab" && transcript.error == nil)
        transcript.apply(.audio(LLMAudioDelta(itemID: "item_1", bytes: [4, 5])))
        #expect(transcript.error?.code == .messageTooLarge)
        #expect(transcript.audio == [1, 2, 3], "the delta beyond the limit is not applied")

        var delta = LLMDelta.audio(LLMAudioDelta(itemID: "item_1", bytes: [1]))
        #expect(LLMDelta.merge(&delta, .audio(LLMAudioDelta(itemID: "item_1", bytes: [2]))))
        #expect(delta == .audio(LLMAudioDelta(itemID: "item_1", bytes: [1, 2])))
        #expect(!LLMDelta.merge(&delta, .audio(LLMAudioDelta(itemID: "item_2", bytes: [3]))))
        #expect(!LLMDelta.merge(&delta, .text("x")))
        #expect(delta == .audio(LLMAudioDelta(itemID: "item_1", bytes: [1, 2])))
    }
}

import RealtimeCore
import RealtimeLLM
import Testing

/// Servers whose tool call `id` is not stable across the deltas of one call (Poolside's
/// chat completions; mlx-openai-server before its PR #216) number the call correctly with
/// `index`: the fragments are one call, not one call per fragment.
@Suite struct OpenAIChatToolCallIDTests {
    static func call(_ body: String) -> Message {
        .sse(type: "message", data: #"{"choices":[{"index":0,"delta":{"tool_calls":[\#(body)]},"finish_reason":null}]}"#, id: "")
    }

    @Test func anUnstableIdAtTheSameIndexIsTheSameCall() throws {
        var d = OpenAIChatDecoder()
        var deltas: [LLMDelta] = []
        deltas += try d.decode(Self.call(#"{"index":0,"id":"call_A","function":{"name":"f","arguments":""}}"#))
        deltas += try d.decode(Self.call(#"{"index":0,"id":"call_B","function":{"arguments":"{\"a\":"}}"#))
        deltas += try d.decode(Self.call(#"{"index":0,"id":"call_C","function":{"arguments":"1}"}}"#))
        let indexes = deltas.compactMap { if case .toolCall(let c) = $0 { c.index } else { nil } }
        #expect(indexes == [0, 0, 0])
    }
}

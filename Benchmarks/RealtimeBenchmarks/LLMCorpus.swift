import Realtime

/// Reply streams as the LLM APIs send them (same field order and
/// metadata as the real chunks), for the `llm` suite: many replies of word-sized text
/// deltas (some multi-byte), some with a tool call, each with its start, finish and usage.
struct LLMCorpus {
    /// The messages of each reply (a decoder is made fresh for each).
    let replies: [[Message]]
    var messageCount: Int { replies.reduce(0) { $0 + $1.count } }
    /// Data bytes of all messages.
    let bytes: Int
    /// Deltas the decoder must produce (text, tool fragments and ends, finishes, usages).
    let expectedDeltas: Int

    static let words = [
        "The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".", " Über", " naïve", " café",
        " 日本", "語", " 🌍", ",", " and", " then", " \"quoted\"", "\n", " results", " in", " a", " long", " reply",
    ]

    static func openAI(replies: Int = 40, tokens: Int = 500, seed: UInt64 = 7) -> LLMCorpus {
        var rng = BenchmarkRandom(seed: seed)
        var data: [String] = []
        var starts: [Int] = []
        var expected = 0
        func chunk(_ choice: String, usage: String = "null") -> String {
            #"{"id":"chatcmpl-AbC123xyz","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[\#(choice)],"usage":\#(usage)}"#
        }
        for reply in 0..<replies {
            starts.append(data.count)
            data.append(chunk(#"{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}"#))
            for _ in 0..<tokens {
                data.append(chunk(#"{"index":0,"delta":{"content":\#(json(words.randomElement(using: &rng)!))},"logprobs":null,"finish_reason":null}"#))
            }
            expected += tokens
            let tools = reply % 4 == 3
            if tools {
                data.append(chunk(#"{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Xy12","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}"#))
                for piece in [#"{\""#, #"city"#, #"\":"#, #" \"Zü"#, #"rich"#, #"\"}"#] {
                    data.append(chunk(#"{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\#(piece)"}}]},"logprobs":null,"finish_reason":null}"#))
                }
                expected += 7 + 1  // fragments, the end
            }
            data.append(chunk(#"{"index":0,"delta":{},"logprobs":null,"finish_reason":"\#(tools ? "tool_calls" : "stop")"}"#))
            data.append(chunk("", usage: #"{"prompt_tokens":31,"completion_tokens":\#(tokens),"total_tokens":\#(tokens + 31)}"#))
            data.append("[DONE]")
            expected += 2
        }
        return LLMCorpus(data: data, starts: starts, type: { _ in "message" }, expectedDeltas: expected)
    }

    static func anthropic(replies: Int = 40, tokens: Int = 500, seed: UInt64 = 7) -> LLMCorpus {
        var rng = BenchmarkRandom(seed: seed)
        var events: [(String, String)] = []
        var starts: [Int] = []
        var expected = 0
        for reply in 0..<replies {
            starts.append(events.count)
            events.append(("message_start", #"{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":31,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}"#))
            events.append(("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#))
            events.append(("ping", #"{"type": "ping"}"#))
            for _ in 0..<tokens {
                events.append(("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\#(json(words.randomElement(using: &rng)!))}}"#))
            }
            events.append(("content_block_stop", #"{"type":"content_block_stop","index":0}"#))
            expected += 1 + tokens
            let tools = reply % 4 == 3
            if tools {
                events.append(("content_block_start", #"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}"#))
                for piece in [#"{\""#, #"city"#, #"\":"#, #" \"Zü"#, #"rich"#, #"\"}"#] {
                    events.append(("content_block_delta", #"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\#(piece)"}}"#))
                }
                events.append(("content_block_stop", #"{"type":"content_block_stop","index":1}"#))
                expected += 1 + 6 + 1
            }
            events.append(("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"\#(tools ? "tool_use" : "end_turn")","stop_sequence":null},"usage":{"output_tokens":\#(tokens)}}"#))
            events.append(("message_stop", #"{"type":"message_stop"}"#))
            expected += 2
        }
        let types = events.map(\.0)
        return LLMCorpus(data: events.map(\.1), starts: starts, type: { types[$0] }, expectedDeltas: expected)
    }

    init(data: [String], starts: [Int], type: (Int) -> String, expectedDeltas: Int) {
        let messages = data.enumerated().map { Message.sse(type: type($0.offset), data: $0.element, id: "") }
        self.replies = zip(starts, starts.dropFirst() + [messages.count]).map { Array(messages[$0..<$1]) }
        self.bytes = data.reduce(0) { $0 + $1.utf8.count }
        self.expectedDeltas = expectedDeltas
    }

    static func json(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

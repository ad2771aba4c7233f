import Realtime

/// The Responses API and Gemini corpora: the same word-sized text deltas as the chat
/// corpora, every fourth reply with a tool call and every fourth (another one) with 20
/// reasoning fragments before the text, in each API's event shapes and field order.
extension LLMCorpus {
    static func responses(replies: Int = 40, tokens: Int = 500, seed: UInt64 = 7) -> LLMCorpus {
        var rng = BenchmarkRandom(seed: seed)
        var events: [(String, String)] = []
        var starts: [Int] = []
        var expected = 0
        for reply in 0..<replies {
            starts.append(events.count)
            let base = events.count
            func add(_ type: String, _ fields: String) {
                events.append((type, #"{"type":"\#(type)",\#(fields),"sequence_number":\#(events.count - base)}"#))
            }
            let response = #""id":"resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b","object":"response","created_at":1741476542,"model":"gpt-4.1-2025-04-14""#
            add("response.created", #""response":{\#(response),"status":"in_progress","usage":null}"#)
            add("response.in_progress", #""response":{\#(response),"status":"in_progress","usage":null}"#)
            var output = 0
            if reply % 4 == 1 {
                let part = #""item_id":"rs_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","output_index":0,"summary_index":0"#
                add("response.output_item.added", #""output_index":0,"item":{"id":"rs_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","type":"reasoning","summary":[]}"#)
                add("response.reasoning_summary_part.added", #"\#(part),"part":{"type":"summary_text","text":""}"#)
                for _ in 0..<20 { add("response.reasoning_summary_text.delta", #"\#(part),"delta":\#(json(words.randomElement(using: &rng)!))"#) }
                add("response.reasoning_summary_text.done", #"\#(part),"text":"…""#)
                add("response.reasoning_summary_part.done", #"\#(part),"part":{"type":"summary_text","text":"…"}"#)
                add("response.output_item.done", #""output_index":0,"item":{"id":"rs_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","type":"reasoning","summary":[{"type":"summary_text","text":"…"}]}"#)
                output = 1
                expected += 20
            }
            let message = #""item_id":"msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","output_index":\#(output),"content_index":0"#
            add("response.output_item.added", #""output_index":\#(output),"item":{"id":"msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","type":"message","status":"in_progress","role":"assistant","content":[]}"#)
            add("response.content_part.added", #"\#(message),"part":{"type":"output_text","text":"","annotations":[]}"#)
            for _ in 0..<tokens { add("response.output_text.delta", #"\#(message),"delta":\#(json(words.randomElement(using: &rng)!)),"logprobs":[]"#) }
            add("response.output_text.done", #"\#(message),"text":"…","logprobs":[]"#)
            add("response.content_part.done", #"\#(message),"part":{"type":"output_text","text":"…","annotations":[]}"#)
            add("response.output_item.done", #""output_index":\#(output),"item":{"id":"msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"…","annotations":[]}]}"#)
            expected += tokens
            if reply % 4 == 3 {
                let call = #""type":"function_call","id":"fc_12345xyz","call_id":"call_12345xyz","name":"get_weather""#
                let item = #""item_id":"fc_12345xyz","output_index":\#(output + 1)"#
                add("response.output_item.added", #""output_index":\#(output + 1),"item":{\#(call),"arguments":""}"#)
                for piece in [#"{\""#, #"city"#, #"\":"#, #" \"Zü"#, #"rich"#, #"\"}"#] { add("response.function_call_arguments.delta", #"\#(item),"delta":"\#(piece)""#) }
                add("response.function_call_arguments.done", #"\#(item),"arguments":"{\"city\": \"Zürich\"}""#)
                add("response.output_item.done", #""output_index":\#(output + 1),"item":{\#(call),"arguments":"{\"city\": \"Zürich\"}"}"#)
                expected += 1 + 6 + 1
            }
            let usage = #""usage":{"input_tokens":31,"input_tokens_details":{"cached_tokens":0},"output_tokens":\#(tokens),"output_tokens_details":{"reasoning_tokens":0},"total_tokens":\#(tokens + 31)}"#
            add("response.completed", #""response":{\#(response),"status":"completed",\#(usage)}"#)
            expected += 2
        }
        let types = events.map(\.0)
        return LLMCorpus(data: events.map(\.1), starts: starts, type: { types[$0] }, expectedDeltas: expected)
    }

    static func gemini(replies: Int = 40, tokens: Int = 500, seed: UInt64 = 7) -> LLMCorpus {
        var rng = BenchmarkRandom(seed: seed)
        var data: [String] = []
        var starts: [Int] = []
        var expected = 0
        func chunk(_ parts: String, finish: String = "", usage: String = #""promptTokenCount":31,"totalTokenCount":31"#) -> String {
            #"{"candidates":[{"content":{"parts":[\#(parts)],"role":"model"}\#(finish),"index":0}],"usageMetadata":{\#(usage)},"modelVersion":"gemini-2.5-flash","responseId":"mW8nabqdGNLk-8YP5qTHqAk"}"#
        }
        for reply in 0..<replies {
            starts.append(data.count)
            if reply % 4 == 1 {
                for _ in 0..<20 { data.append(chunk(#"{"text":\#(json(words.randomElement(using: &rng)!)),"thought":true}"#)) }
                expected += 40
            }
            for _ in 0..<tokens { data.append(chunk(#"{"text":\#(json(words.randomElement(using: &rng)!))}"#)) }
            expected += 2 * tokens
            if reply % 4 == 3 {
                data.append(chunk(#"{"functionCall":{"name":"get_weather","args":{"city":"Zürich"}},"thoughtSignature":"CiQBcsjafE5HcWXz"}"#))
                expected += 2 + 1 + 1
            }
            data.append(chunk(#"{"text":""}"#, finish: #","finishReason":"STOP""#, usage: #""promptTokenCount":31,"candidatesTokenCount":\#(tokens),"totalTokenCount":\#(tokens + 31),"thoughtsTokenCount":20"#))
            expected += 2
        }
        return LLMCorpus(data: data, starts: starts, type: { _ in "message" }, expectedDeltas: expected)
    }
}

import Realtime

/// The Responses API and Gemini corpora: the same word-sized text deltas as the chat
/// corpora, every fourth reply with a tool call and every fourth (another one) with 20
/// reasoning fragments before the text, in each API's event shapes and field order. The
/// OpenAI Realtime corpus: the same text deltas as the responses of one session, every
/// fourth with a tool call and every fourth (another one) an audio reply, whose transcript
/// deltas come with a 4,800-byte audio delta (100 ms of 24 kHz PCM16) every tenth.
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

    static func realtime(replies: Int = 40, tokens: Int = 500, seed: UInt64 = 7) -> LLMCorpus {
        var rng = BenchmarkRandom(seed: seed)
        var data: [String] = []
        var expected = 0
        let audio = String(repeating: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g", count: 145) + "IQ=="
        func add(_ type: String, _ fields: String) {
            data.append(#"{"type":"\#(type)","event_id":"event_\#(data.count)",\#(fields)}"#)
        }
        for reply in 0..<replies {
            let response = "resp_C9lYxR1ZkJ\(reply)"
            let item = #""response_id":"\#(response)","item_id":"item_C9lYxS2aH\#(reply)","output_index":0,"content_index":0"#
            add("response.created", #""response":{"id":"\#(response)","object":"realtime.response","status":"in_progress","output":[]}"#)
            add("response.output_item.added", #""response_id":"\#(response)","output_index":0,"item":{"id":"item_C9lYxS2aH\#(reply)","object":"realtime.item","type":"message","status":"in_progress","role":"assistant","content":[]}"#)
            let spoken = reply % 4 == 1
            add("response.content_part.added", #"\#(item),"part":{"type":"\#(spoken ? "audio" : "text")","text":""}"#)
            for token in 0..<tokens {
                if spoken, token % 10 == 0 {
                    add("response.output_audio.delta", #"\#(item),"delta":"\#(audio)""#)
                    expected += 1
                }
                let type = spoken ? "response.output_audio_transcript.delta" : "response.output_text.delta"
                add(type, #"\#(item),"delta":\#(json(words.randomElement(using: &rng)!))"#)
            }
            expected += tokens
            add("response.output_text.done", #"\#(item),"text":"…""#)
            add("response.content_part.done", #"\#(item),"part":{"type":"text","text":"…"}"#)
            add("response.output_item.done", #""response_id":"\#(response)","output_index":0,"item":{"id":"item_C9lYxS2aH\#(reply)","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"…"}]}"#)
            if reply % 4 == 3 {
                let call = #""id":"item_fc\#(reply)","object":"realtime.item","type":"function_call","call_id":"call_\#(reply)","name":"get_weather""#
                let where_ = #""response_id":"\#(response)","item_id":"item_fc\#(reply)","output_index":1,"call_id":"call_\#(reply)""#
                add("response.output_item.added", #""response_id":"\#(response)","output_index":1,"item":{\#(call),"status":"in_progress","arguments":""}"#)
                for piece in [#"{\""#, #"city"#, #"\":"#, #" \"Zü"#, #"rich"#, #"\"}"#] {
                    add("response.function_call_arguments.delta", #"\#(where_),"delta":"\#(piece)""#)
                }
                add("response.function_call_arguments.done", #"\#(where_),"name":"get_weather","arguments":"{\"city\": \"Zürich\"}""#)
                add("response.output_item.done", #""response_id":"\#(response)","output_index":1,"item":{\#(call),"status":"completed","arguments":"{\"city\": \"Zürich\"}"}"#)
                expected += 1 + 6 + 1
            }
            add("response.done", #""response":{"id":"\#(response)","object":"realtime.response","status":"completed","status_details":null,"output":[],"usage":{"total_tokens":\#(tokens + 31),"input_tokens":31,"output_tokens":\#(tokens),"input_token_details":{"text_tokens":31,"audio_tokens":0,"cached_tokens":0},"output_token_details":{"text_tokens":\#(tokens),"audio_tokens":0}}}"#)
            expected += 2
        }
        // One session: a single decoder reads every response.
        return LLMCorpus(data: data, starts: [0], type: { _ in "message" }, expectedDeltas: expected)
    }
}

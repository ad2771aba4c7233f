import RealtimeCore
import RealtimeLLM
import Testing

@Suite(.timeLimit(.minutes(1))) struct OpenAIChatDecoderTests {
    static func chunk(_ choice: String, usage: String = "null") -> String {
        #"data: {"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[\#(choice)],"usage":\#(usage)}"#
    }

    static func content(_ text: String) -> String {
        chunk(#"{"index":0,"delta":{"content":"\#(text)"},"logprobs":null,"finish_reason":null}"#)
    }

    /// A text reply as the API streams it with `stream_options.include_usage`: a role chunk
    /// with empty content, content chunks (multi-byte text), the finish, the usage chunk
    /// with empty choices, then `[DONE]`.
    static let textReply = SSETranscript.sse([
        chunk(#"{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}"#),
        content("Hé"),
        content("llo, wörld "),
        content("🌍 日本語"),
        content(#"\n\"quoted\""#),
        chunk(#"{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}"#),
        chunk("", usage: #"{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19,"prompt_tokens_details":{"cached_tokens":0}}"#),
        "data: [DONE]",
    ])

    @Test func textReplyGolden() throws {
        let (deltas, error) = try SSETranscript.decode(Self.textReply, with: .openAI)
        #expect(error == nil)
        #expect(deltas == [
            .text("Hé"), .text("llo, wörld "), .text("🌍 日本語"), .text("\n\"quoted\""),
            .finish(.stop),
            .usage(LLMUsage(inputTokens: 12, outputTokens: 7, totalTokens: 19, cachedInputTokens: 0)),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "Héllo, wörld 🌍 日本語\n\"quoted\"")
        #expect(transcript.finishReason == .stop)
        #expect(transcript.usage == LLMUsage(inputTokens: 12, outputTokens: 7, totalTokens: 19, cachedInputTokens: 0))
        #expect(transcript.isFinished)
    }

    /// Two parallel tool calls: id and name in each call's first fragment, arguments in
    /// pieces, then `finish_reason: tool_calls`.
    static let toolReply = SSETranscript.sse([
        chunk(#"{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}"#),
        chunk(#"{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}"#),
        chunk(#"{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"Zürich\"}"}}]},"finish_reason":null}"#),
        chunk(#"{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"get_time","arguments":""}}]},"finish_reason":null}"#),
        chunk(#"{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":"}}]},"finish_reason":null}"#),
        chunk(#"{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]},"finish_reason":null}"#),
        chunk(#"{"index":0,"delta":{},"finish_reason":"tool_calls"}"#),
        "data: [DONE]",
    ])

    @Test func toolCallsGolden() throws {
        let (deltas, error) = try SSETranscript.decode(Self.toolReply, with: .openAI)
        #expect(error == nil)
        #expect(deltas == [
            .toolCall(LLMToolCallDelta(index: 0, id: "call_A", name: "get_weather")),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"{"city":"#)),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #" "Zürich"}"#)),
            .toolCall(LLMToolCallDelta(index: 1, id: "call_B", name: "get_time")),
            .toolCall(LLMToolCallDelta(index: 1, argumentsFragment: #"{"tz":"#)),
            .toolCall(LLMToolCallDelta(index: 1, argumentsFragment: #""CET"}"#)),
            .toolCallEnd(index: 0), .toolCallEnd(index: 1),
            .finish(.toolCalls),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        let expected = [
            LLMToolCall(index: 0, id: "call_A", name: "get_weather", arguments: #"{"city": "Zürich"}"#, isComplete: true),
            LLMToolCall(index: 1, id: "call_B", name: "get_time", arguments: #"{"tz":"CET"}"#, isComplete: true),
        ]
        #expect(completed == expected)
        #expect(transcript.toolCalls == expected)
        #expect(transcript.text.isEmpty)
    }

    @Test func inStreamErrorIsAStreamErrorDelta() throws {
        let sse = SSETranscript.sse([
            Self.content("partial"),
            #"data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#,
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .openAI)
        #expect(error == nil)
        #expect(deltas.count == 2)
        #expect(deltas.first == .text("partial"))
        guard case .error(let failure) = deltas.last else {
            Issue.record("no error delta: \(deltas)")
            return
        }
        #expect(failure.code == .streamError)
        #expect(failure.detail == "openai server_error")
        #expect(failure.bodyExcerpt?.contains("The server had an error") == true)
        #expect(failure.failureClass == .http)
        // The description is the SDK's words only: the server's message stays in the body.
        #expect(failure.description == "stream_error: openai server_error")
    }

    @Test func errorCodesAndShapesAreReadLeniently() throws {
        var d = OpenAIChatDecoder()
        let numeric = try d.decode(.sse(type: "message", data: #"{"error":{"message":"x","code":429}}"#, id: ""))
        #expect(numeric.map(\.errorDetail) == ["openai 429"])
        let text = try d.decode(.sse(type: "message", data: #"{"error":"rate limited"}"#, id: ""))
        #expect(text.map(\.errorDetail) == ["openai error object"])
        // A type that is not a plain identifier is not echoed.
        let odd = try d.decode(.sse(type: "message", data: #"{"error":{"type":"Bearer sk-secret is invalid"}}"#, id: ""))
        #expect(odd.map(\.errorDetail) == ["openai error object"])
    }

    @Test func malformedDataThrowsProtocolViolation() throws {
        for (data, detail) in [
            ("not json", "openai: the event's data is not valid JSON"),
            ("[1,2]", "openai: the event's data has the wrong type"),
            (#"{"choices":[{"index":0,"delta":{"content":5}}]}"#, "openai: 'choices[0].delta.content' has the wrong type"),
            (#"{"choices":{}}"#, "openai: 'choices' has the wrong type"),
        ] {
            var d = OpenAIChatDecoder()
            #expect(throws: RealtimeError.self) { try d.decode(.sse(type: "message", data: data, id: "")) }
            do {
                _ = try d.decode(.sse(type: "message", data: data, id: ""))
            } catch {
                #expect(error.code == .protocolViolation)
                #expect(error.detail == detail, "\(data)")
            }
        }
    }

    /// Proxies and local servers add events of their own: an object with neither `choices`
    /// nor `error` is skipped as `unrecognized`, even in the middle of a tool call, and the
    /// reply goes on to its finish with the call whole.
    @Test func eventsWithNeitherChoicesNorErrorAreSkipped() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A","function":{"name":"f","arguments":"{\"a\""}}]}}"#),
            #"data: {"object":"keepalive"}"#,
            "data: {}",
            #"data: {"object":{"nested":true},"id":"x"}"#,
            #"data: {"object":"has spaces, not an identifier"}"#,
            Self.chunk(#"{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}"#),
            Self.chunk(#"{"index":0,"delta":{},"finish_reason":"tool_calls"}"#),
            "data: [DONE]",
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .openAI)
        #expect(error == nil)
        #expect(deltas.filter { if case .unrecognized = $0 { true } else { false } } == [
            .unrecognized("keepalive"), .unrecognized(""), .unrecognized(""), .unrecognized(""),
        ])
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed == [LLMToolCall(index: 0, id: "call_A", name: "f", arguments: #"{"a":1}"#, isComplete: true)])
        #expect(transcript.isFinished)
        #expect(transcript.unrecognizedEvents == 4)
    }

    /// Many calls, their fragments interleaved, some servers' calls without `index`: every
    /// call gets its own arguments, and the finish ends them all in index order.
    @Test func manyInterleavedToolCallsKeepTheirArguments() throws {
        var d = OpenAIChatDecoder()
        var deltas: [LLMDelta] = []
        let calls = 5000
        func fragment(_ call: Int, _ piece: Int, index: Bool) -> Message {
            let head = piece == 0 ? #""id":"call_\#(call)","function":{"name":"f\#(call)","arguments":"["#
                : #""function":{"arguments":"\#(piece),"#
            let indexField = index ? #""index":\#(call),"# : ""
            let data = #"{"choices":[{"index":0,"delta":{"tool_calls":[{\#(indexField)\#(head)"}}]}}]}"#
            return .sse(type: "message", data: data, id: "")
        }
        // Four calls open at a time, their fragments round-robin.
        for window in stride(from: 0, to: calls, by: 4) {
            for piece in 0..<3 {
                for call in window..<min(window + 4, calls) {
                    try d.decode(fragment(call, piece, index: true), into: &deltas)
                }
            }
        }
        try d.decode(.sse(type: "message", data: #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#, id: ""), into: &deltas)
        let ends = deltas.compactMap { if case .toolCallEnd(let i) = $0 { i } else { nil } }
        #expect(ends == Array(0..<calls))
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed.count == calls)
        #expect(transcript.toolCalls.map(\.index) == Array(0..<calls))
        #expect(transcript.toolCalls.allSatisfy { $0.arguments == "[1,2," && $0.id == "call_\($0.index)" && $0.name == "f\($0.index)" && $0.isComplete })

        // Without indexes, each new id is the next call, a fragment without id the last one.
        var unindexed = OpenAIChatDecoder()
        var more: [LLMDelta] = []
        for call in 0..<calls {
            for piece in 0..<3 {
                let message = piece == 0 ? fragment(call, 0, index: false)
                    : Message.sse(type: "message", data: #"{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\#(piece),"}}]}}]}"#, id: "")
                try unindexed.decode(message, into: &more)
            }
        }
        var second = LLMTranscript()
        second.apply(contentsOf: more)
        #expect(second.toolCalls.map(\.index) == Array(0..<calls))
        #expect(second.toolCalls.allSatisfy { $0.arguments == "[1,2," && $0.id == "call_\($0.index)" })
    }

    @Test func doneAndEmptyContentProduceNothing() throws {
        var d = OpenAIChatDecoder()
        #expect(try d.decode(.sse(type: "message", data: "[DONE]", id: "")).isEmpty)
        #expect(try d.decode(.sse(type: "message", data: Self.content("").dropFirst(6).description, id: "")).isEmpty)
    }

    @Test func onlyTheChosenChoiceIsFollowed() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{"content":"zero"},"finish_reason":null},{"index":1,"delta":{"content":"one"},"finish_reason":null}"#),
            Self.chunk(#"{"index":1,"delta":{},"finish_reason":"length"}"#),
        ])
        #expect(try SSETranscript.decode(sse, with: .openAI).deltas == [.text("zero")])
        #expect(try SSETranscript.decode(sse, with: OpenAIChatDecoder(choice: 1)).deltas == [.text("one"), .finish(.length)])
    }

    /// Some compatible servers omit `tool_calls[].index` and send each call whole: a new id
    /// is the next call, a fragment without id continues the last one.
    @Test func missingToolCallIndexesComeFromIDs() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]}}"#),
            Self.chunk(#"{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{\"x\""}}]}}"#),
            Self.chunk(#"{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}"#),
            Self.chunk(#"{"index":0,"delta":{},"finish_reason":"tool_calls"}"#),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: try SSETranscript.decode(sse, with: .openAI).deltas)
        #expect(transcript.toolCalls == [
            LLMToolCall(index: 0, id: "a", name: "f", arguments: "{}", isComplete: true),
            LLMToolCall(index: 1, id: "b", name: "g", arguments: #"{"x":1}"#, isComplete: true),
        ])
    }

    /// DeepSeek's documented `deepseek-reasoner` stream: `reasoning_content` chunks (content
    /// null), then content chunks (reasoning_content null), and the usage with
    /// `completion_tokens_details.reasoning_tokens`; reasoning never reaches the text.
    static let deepSeekReply = SSETranscript.sse([
        #"data: {"id":"a3f1","object":"chat.completion.chunk","created":1737000000,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}"#,
        #"data: {"id":"a3f1","object":"chat.completion.chunk","created":1737000000,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Okay, the user said \"hi\"."},"logprobs":null,"finish_reason":null}]}"#,
        #"data: {"id":"a3f1","object":"chat.completion.chunk","created":1737000000,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08","choices":[{"index":0,"delta":{"content":null,"reasoning_content":" Greet back."},"logprobs":null,"finish_reason":null}]}"#,
        #"data: {"id":"a3f1","object":"chat.completion.chunk","created":1737000000,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08","choices":[{"index":0,"delta":{"content":"Hello! 👋","reasoning_content":null},"logprobs":null,"finish_reason":null}]}"#,
        #"data: {"id":"a3f1","object":"chat.completion.chunk","created":1737000000,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":13,"completion_tokens":40,"total_tokens":53,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":31},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":13}}"#,
        "data: [DONE]",
    ])

    @Test func reasoningContentIsReasoning() throws {
        let (deltas, error) = try SSETranscript.decode(Self.deepSeekReply, with: .openAI)
        #expect(error == nil)
        let usage = LLMUsage(inputTokens: 13, outputTokens: 40, totalTokens: 53, reasoningTokens: 31, cachedInputTokens: 0)
        #expect(deltas == [
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "Okay, the user said \"hi\".")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: " Greet back.")),
            .text("Hello! 👋"), .finish(.stop), .usage(usage),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "Hello! 👋")
        #expect(transcript.reasoning == [LLMReasoning(index: 0, text: "Okay, the user said \"hi\". Greet back.")])
    }

    /// OpenRouter's `reasoning` field (beside its `reasoning_details`, not decoded); a run of
    /// reasoning after text is the next block; a field of another type is skipped.
    @Test func openRouterReasoningAndBlocks() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{"role":"assistant","content":"","reasoning":"The user wants","reasoning_details":[{"type":"reasoning.text","text":"The user wants","format":"unknown","index":0}]},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"content":"","reasoning":" a poem."},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"content":"Roses"},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"reasoning":"Rhyme next.","reasoning_content":""},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"reasoning":{"effort":"high"},"content":" are red"},"finish_reason":null}"#),
        ])
        #expect(try SSETranscript.decode(sse, with: .openAI).deltas == [
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "The user wants")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: " a poem.")),
            .text("Roses"),
            .reasoning(LLMReasoningDelta(index: 1, kind: .text, fragment: "Rhyme next.")),
            .text(" are red"),
        ])
    }

    /// A refusal (structured outputs) and the `url_citation` annotations of a search model.
    @Test func refusalsAndAnnotations() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{"role":"assistant","content":null,"refusal":""},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"refusal":"I'm sorry, "},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"refusal":"I can't help."},"finish_reason":null}"#),
            Self.chunk(#"{"index":0,"delta":{"content":"See the news.","annotations":[{"type":"url_citation","url_citation":{"end_index":13,"start_index":4,"title":"News","url":"https://example.com/news"}}]},"finish_reason":"stop"}"#),
        ])
        let citation = LLMCitation(
            type: "url_citation", url: "https://example.com/news", title: "News",
            json: #"{"type":"url_citation","url_citation":{"end_index":13,"start_index":4,"title":"News","url":"https://example.com/news"}}"#)
        #expect(try SSETranscript.decode(sse, with: .openAI).deltas == [
            .refusal("I'm sorry, "), .refusal("I can't help."), .text("See the news."), .citation(citation), .finish(.stop),
        ])
    }

    /// An object without `choices` is named by its `object`, else by its SSE event type.
    @Test func unrecognizedObjectsAreNamed() throws {
        var d = OpenAIChatDecoder()
        #expect(try d.decode(.sse(type: "message", data: #"{"object":"keepalive"}"#, id: "")) == [.unrecognized("keepalive")])
        #expect(try d.decode(.sse(type: "ping", data: "{}", id: "")) == [.unrecognized("ping")])
        #expect(try d.decode(.sse(type: "message", data: "{}", id: "")) == [.unrecognized("")])
    }

    @Test func aSecondFinishIsIgnored() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{},"finish_reason":"stop"}"#),
            Self.chunk(#"{"index":0,"delta":{},"finish_reason":"stop"}"#),
        ])
        #expect(try SSETranscript.decode(sse, with: .openAI).deltas == [.finish(.stop)])
    }

    /// Golden sequences with mutated data never crash the decoder: each message decodes or
    /// throws `protocol_violation`.
    @Test(arguments: 1...40) func mutatedEventsNeverCrash(seed: UInt64) throws {
        for sse in [Self.textReply, Self.toolReply, Self.deepSeekReply] {
            try SSETranscript.expectMutationsAreSafe(sse, with: OpenAIChatDecoder(), seed: seed)
        }
    }
}

extension LLMDelta {
    /// The detail of an ``error(_:)`` delta, for compact expectations.
    var errorDetail: String? {
        if case .error(let e) = self { return e.detail }
        return nil
    }
}

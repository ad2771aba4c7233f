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
            .usage(LLMUsage(inputTokens: 12, outputTokens: 7, totalTokens: 19)),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "Héllo, wörld 🌍 日本語\n\"quoted\"")
        #expect(transcript.finishReason == .stop)
        #expect(transcript.usage == LLMUsage(inputTokens: 12, outputTokens: 7, totalTokens: 19))
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
            (#"{"id":"x"}"#, "openai: the event's data has neither 'choices' nor 'error'"),
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

    @Test func aSecondFinishIsIgnored() throws {
        let sse = SSETranscript.sse([
            Self.chunk(#"{"index":0,"delta":{},"finish_reason":"stop"}"#),
            Self.chunk(#"{"index":0,"delta":{},"finish_reason":"stop"}"#),
        ])
        #expect(try SSETranscript.decode(sse, with: .openAI).deltas == [.finish(.stop)])
    }
}

extension LLMDelta {
    /// The detail of an ``error(_:)`` delta, for compact expectations.
    var errorDetail: String? {
        if case .error(let e) = self { return e.detail }
        return nil
    }
}

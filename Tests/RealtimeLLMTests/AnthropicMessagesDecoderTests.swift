import RealtimeCore
import RealtimeLLM
import Testing

@Suite(.timeLimit(.minutes(1))) struct AnthropicMessagesDecoderTests {
    static func event(_ type: String, _ data: String) -> String {
        "event: \(type)\ndata: \(data)"
    }

    static func textDelta(_ index: Int, _ text: String) -> String {
        event("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"text_delta","text":"\#(text)"}}"#)
    }

    static func jsonDelta(_ index: Int, _ json: String) -> String {
        event("content_block_delta", #"{"type":"content_block_delta","index":\#(index),"delta":{"type":"input_json_delta","partial_json":"\#(json)"}}"#)
    }

    static let messageStart = event(
        "message_start",
        #"{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#)

    /// A reply with a thinking block (its text and signature), a text block, pings and a
    /// tool call, as the Messages API streams it.
    static let toolReply = SSETranscript.sse([
        messageStart,
        event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#),
        event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}"#),
        event("content_block_delta", #"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#),
        event("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
        event("content_block_start", #"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#),
        event("ping", #"{"type": "ping"}"#),
        textDelta(1, "Okay, "),
        textDelta(1, "checking Zürich 🌤"),
        event("content_block_stop", #"{"type":"content_block_stop","index":1}"#),
        event("content_block_start", #"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}"#),
        jsonDelta(2, ""),
        jsonDelta(2, #"{\"city\": \"Zü"#),
        jsonDelta(2, #"rich\"}"#),
        event("content_block_stop", #"{"type":"content_block_stop","index":2}"#),
        event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}"#),
        event("message_stop", #"{"type":"message_stop"}"#),
    ])

    @Test func toolReplyGolden() throws {
        let (deltas, error) = try SSETranscript.decode(Self.toolReply, with: .anthropic)
        #expect(error == nil)
        #expect(deltas == [
            .usage(LLMUsage(inputTokens: 25, outputTokens: 1)),
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "Let me see.")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .signature, fragment: "EqQB")),
            .text("Okay, "), .text("checking Zürich 🌤"),
            .toolCall(LLMToolCallDelta(index: 0, id: "toolu_01", name: "get_weather")),
            .toolCall(LLMToolCallDelta(index: 0)),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"{"city": "Zü"#)),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"rich"}"#)),
            .toolCallEnd(index: 0),
            .finish(.toolUse),
            .usage(LLMUsage(outputTokens: 89)),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        let call = LLMToolCall(index: 0, id: "toolu_01", name: "get_weather", arguments: #"{"city": "Zürich"}"#, isComplete: true)
        #expect(completed == [call])
        #expect(transcript.toolCalls == [call])
        #expect(transcript.text == "Okay, checking Zürich 🌤")
        #expect(transcript.reasoning == [LLMReasoning(index: 0, text: "Let me see.", signature: "EqQB")])
        #expect(transcript.finishReason == .toolUse)
        // Output counts are cumulative: the last one wins, the input count stays.
        #expect(transcript.usage == LLMUsage(inputTokens: 25, outputTokens: 89))
    }

    /// The extended thinking guide's streamed reply with a redacted thinking block, then a
    /// text block with a `citations_delta` (the citations guide's `char_location`), as the
    /// Messages API streams them.
    static let thinkingReply = SSETranscript.sse([
        event("message_start", #"{"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 30, "cache_read_input_tokens": 12, "output_tokens": 1}}}"#),
        event("content_block_start", #"{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}"#),
        event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147"}}"#),
        event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "\n462 = 3 × 147 + 21"}}"#),
        event("content_block_delta", #"{"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}"#),
        event("content_block_stop", #"{"type": "content_block_stop", "index": 0}"#),
        event("content_block_start", #"{"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"}}"#),
        event("content_block_stop", #"{"type": "content_block_stop", "index": 1}"#),
        event("content_block_start", #"{"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": "", "citations": []}}"#),
        textDelta(2, "The GCD is **21**"),
        event("content_block_delta", #"{"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta", "citation": {"type": "char_location", "cited_text": "The grass is green.", "document_index": 0, "document_title": "Example Document", "start_char_index": 0, "end_char_index": 20}}}"#),
        event("content_block_stop", #"{"type": "content_block_stop", "index": 2}"#),
        event("message_delta", #"{"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 120}}"#),
        event("message_stop", #"{"type": "message_stop"}"#),
    ])

    @Test func thinkingRedactedThinkingAndCitations() throws {
        let (deltas, error) = try SSETranscript.decode(Self.thinkingReply, with: .anthropic)
        #expect(error == nil)
        let citation = LLMCitation(
            type: "char_location", title: "Example Document", citedText: "The grass is green.",
            json: #"{"cited_text":"The grass is green.","document_index":0,"document_title":"Example Document","end_char_index":20,"start_char_index":0,"type":"char_location"}"#)
        #expect(deltas == [
            .usage(LLMUsage(inputTokens: 30, outputTokens: 1, cachedInputTokens: 12)),
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .text, fragment: "\n462 = 3 × 147 + 21")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .signature, fragment: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds")),
            .reasoning(LLMReasoningDelta(index: 1, kind: .redacted, fragment: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP")),
            .text("The GCD is **21**"),
            .citation(citation),
            .finish(.endTurn),
            .usage(LLMUsage(outputTokens: 120)),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "The GCD is **21**")
        #expect(transcript.reasoning == [
            LLMReasoning(
                index: 0, text: "I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147\n462 = 3 × 147 + 21",
                signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"),
            LLMReasoning(index: 1, redactedData: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"),
        ])
        #expect(transcript.citations == [citation])
        #expect(transcript.usage == LLMUsage(inputTokens: 30, outputTokens: 120, cachedInputTokens: 12))
    }

    /// The web search tool's blocks (`server_tool_use` with its streamed input,
    /// `web_search_tool_result`) are named and skipped: their input is not a client tool
    /// call. An unknown delta type is named too.
    @Test func serverToolBlocksAreSkippedByName() throws {
        let sse = SSETranscript.sse([
            Self.messageStart,
            Self.event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB","name":"web_search","input":{}}}"#),
            Self.jsonDelta(0, #"{\"query\": \"weather NYC today\"}"#),
            Self.event("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            Self.event("content_block_start", #"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_014hJH82Qum7Td6UV8gDXThB","content":[{"type":"web_search_result","title":"Weather","url":"https://weather.example","encrypted_content":"Ev0D","page_age":null}]}}"#),
            Self.event("content_block_stop", #"{"type":"content_block_stop","index":1}"#),
            Self.event("content_block_start", #"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#),
            Self.event("content_block_delta", #"{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"Sunny, 75°F","url":"https://weather.example","title":"Weather","encrypted_index":"Eo8B"}}}"#),
            Self.textDelta(2, "Sunny."),
            Self.event("content_block_delta", #"{"type":"content_block_delta","index":2,"delta":{"type":"future_delta","x":1}}"#),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .anthropic)
        #expect(error == nil)
        #expect(deltas == [
            .usage(LLMUsage(inputTokens: 25, outputTokens: 1)),
            .unrecognized("server_tool_use"), .unrecognized("web_search_tool_result"),
            .citation(LLMCitation(
                type: "web_search_result_location", url: "https://weather.example", title: "Weather", citedText: "Sunny, 75°F",
                json: #"{"cited_text":"Sunny, 75°F","encrypted_index":"Eo8B","title":"Weather","type":"web_search_result_location","url":"https://weather.example"}"#)),
            .text("Sunny."),
            .unrecognized("future_delta"),
        ])
    }

    @Test func twoToolCallsAreNumberedByToolBlock() throws {
        let sse = SSETranscript.sse([
            Self.messageStart,
            Self.event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}"#),
            Self.event("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            Self.event("content_block_start", #"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"a","input":{}}}"#),
            Self.event("content_block_start", #"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t2","name":"b","input":{}}}"#),
            Self.jsonDelta(2, #"{\"y\":2}"#),
            Self.jsonDelta(1, #"{\"x\":1}"#),
            Self.event("content_block_stop", #"{"type":"content_block_stop","index":2}"#),
            Self.event("content_block_stop", #"{"type":"content_block_stop","index":1}"#),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in try SSETranscript.decode(sse, with: .anthropic).deltas { completed += transcript.apply(delta) }
        #expect(transcript.text == "Hi")
        #expect(completed.map(\.index) == [1, 0])
        #expect(transcript.toolCalls == [
            LLMToolCall(index: 0, id: "t1", name: "a", arguments: #"{"x":1}"#, isComplete: true),
            LLMToolCall(index: 1, id: "t2", name: "b", arguments: #"{"y":2}"#, isComplete: true),
        ])
    }

    @Test func errorEventIsAStreamErrorDelta() throws {
        let sse = SSETranscript.sse([
            Self.messageStart,
            Self.textDelta(0, "Hel"),
            Self.event("error", #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .anthropic)
        #expect(error == nil)
        #expect(deltas.dropLast() == [.usage(LLMUsage(inputTokens: 25, outputTokens: 1)), .text("Hel")])
        guard case .error(let failure) = deltas.last else {
            Issue.record("no error delta: \(deltas)")
            return
        }
        #expect(failure.code == .streamError)
        #expect(failure.detail == "anthropic overloaded_error")
        #expect(failure.bodyExcerpt == #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
    }

    /// A `tool_use` block that arrives with its input filled in (no `input_json_delta`).
    @Test func filledInputIsTheFirstFragment() throws {
        var d = AnthropicMessagesDecoder()
        let deltas = try d.decode(.sse(
            type: "content_block_start",
            data: #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"b":[1,2],"a":"é"}}}"#,
            id: ""))
        #expect(deltas == [.toolCall(LLMToolCallDelta(index: 0, id: "t", name: "n", argumentsFragment: #"{"a":"é","b":[1,2]}"#))])
    }

    @Test func theDataTypeWinsOverTheEventName() throws {
        var d = AnthropicMessagesDecoder()
        // No `event:` line: the SSE type is "message", the data's type decides.
        #expect(try d.decode(.sse(type: "message", data: #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#, id: "")) == [.text("x")])
        // No type in the data: the event name decides.
        #expect(try d.decode(.sse(type: "message_delta", data: #"{"delta":{"stop_reason":"end_turn"}}"#, id: "")) == [.finish(.endTurn)])
    }

    @Test func malformedEventsThrowProtocolViolation() throws {
        SSETranscript.expectViolations(AnthropicMessagesDecoder(), [
            ("message", #"{"index":0}"#, "anthropic: an event without a 'type'"),
            ("content_block_delta", "{", "anthropic: the event's data is not valid JSON"),
            ("content_block_start", #"{"type":"content_block_start"}"#, "anthropic: content_block_start without 'index' and 'content_block'"),
            ("content_block_delta", #"{"type":"content_block_delta","index":0}"#, "anthropic: content_block_delta without 'index' and 'delta'"),
            ("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"id":"x"}}"#, "anthropic: 'content_block' has no 'type'"),
        ])
    }

    @Test func stopAndPingProduceNothing() throws {
        var d = AnthropicMessagesDecoder()
        for (type, data) in [
            ("message_stop", #"{"type":"message_stop"}"#), ("ping", #"{"type":"ping"}"#),
            ("content_block_stop", #"{"type":"content_block_stop","index":7}"#),
        ] {
            #expect(try d.decode(.sse(type: type, data: data, id: "")).isEmpty, "\(type)")
        }
    }

    /// An event type this version does not know is skipped whole, whatever shape its fields
    /// have (an `index` that is a string, a `delta` that is not an object), even in the
    /// middle of a tool call; the reply goes on to its finish.
    @Test func unknownEventTypesAreSkippedWhateverTheirFields() throws {
        var d = AnthropicMessagesDecoder()
        for (type, data, name) in [
            ("future_event", #"{"type":"future_event","x":1}"#, "future_event"),
            ("content_block_summary", #"{"type":"content_block_summary","index":"first","delta":"short","message":[1,2]}"#, "content_block_summary"),
            ("message", #"{"type":"not an identifier","error":"x"}"#, ""),
            ("message", #"{"type":"future_event","usage":[],"content_block":7}"#, "future_event"),
        ] {
            #expect(try d.decode(.sse(type: type, data: data, id: "")) == [.unrecognized(name)], "\(data)")
        }
        let sse = SSETranscript.sse([
            Self.messageStart,
            Self.event("content_block_start", #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#),
            Self.jsonDelta(0, #"{\"a\""#),
            Self.event("content_block_summary", #"{"type":"content_block_summary","index":"first","delta":"short"}"#),
            Self.jsonDelta(0, ":1}"),
            Self.event("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            Self.event("message_delta", #"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#),
            Self.event("message_stop", #"{"type":"message_stop"}"#),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .anthropic)
        #expect(error == nil)
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed == [LLMToolCall(index: 0, id: "toolu_1", name: "f", arguments: #"{"a":1}"#, isComplete: true)])
        #expect(transcript.isFinished)
        #expect(transcript.unrecognizedEvents == 1)
    }

    /// A known event whose fields have the wrong shape still fails the reply.
    @Test func aKnownEventWithTheWrongShapeStillFails() throws {
        var d = AnthropicMessagesDecoder()
        #expect(throws: RealtimeError.self) {
            try d.decode(.sse(type: "content_block_delta", data: #"{"type":"content_block_delta","index":"first","delta":{}}"#, id: ""))
        }
    }

    /// An error event's excerpt is at most 512 bytes even when its data is one grapheme
    /// cluster of two million combining marks.
    @Test func errorExcerptsAreBoundedInBytes() throws {
        var d = AnthropicMessagesDecoder()
        let marks = String(repeating: "\u{301}", count: 2_000_000)
        let data = #"{"type":"error","error":{"type":"overloaded_error","message":"e"# + marks + #""}}"#
        let deltas = try d.decode(.sse(type: "error", data: data, id: ""))
        guard case .error(let error) = deltas.first else { Issue.record("no error delta"); return }
        let excerpt = try #require(error.bodyExcerpt)
        #expect(excerpt.utf8.count <= RealtimeError.maxBodyExcerpt)
        #expect(data.unicodeScalars.starts(with: excerpt.unicodeScalars))
        var o = OpenAIChatDecoder()
        do {
            _ = try o.decode(.sse(type: "message", data: #"{"choices":"e"# + marks, id: ""))
            Issue.record("no error")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect((error.bodyExcerpt?.utf8.count ?? 0) <= RealtimeError.maxBodyExcerpt)
        }
    }

    /// Golden sequences with mutated data never crash the decoder: each message decodes or
    /// throws `protocol_violation`.
    @Test(arguments: 1...40) func mutatedEventsNeverCrash(seed: UInt64) throws {
        for sse in [Self.toolReply, Self.thinkingReply] {
            try SSETranscript.expectMutationsAreSafe(sse, with: AnthropicMessagesDecoder(), seed: seed)
        }
    }
}

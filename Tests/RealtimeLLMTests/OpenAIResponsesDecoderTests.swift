import RealtimeCore
import RealtimeLLM
import Testing

/// The golden sequences below follow the OpenAI API reference, "Streaming events" of the
/// Responses API (each event's documented example object, with its field names and the
/// `sequence_number` every event carries), the function calling guide's streamed
/// `get_weather` call, the reasoning guide's streamed summary, and the web search guide's
/// `url_citation` annotation. No OpenAI server runs here: these documented sequences are the
/// third-party reference the decoder is checked against.
@Suite(.timeLimit(.minutes(1))) struct OpenAIResponsesDecoderTests {
    /// An SSE event as the API writes it: `event:` is the data's `type`.
    static func event(_ type: String, _ fields: String, _ sequence: Int) -> String {
        "event: \(type)\ndata: {\"type\":\"\(type)\",\(fields),\"sequence_number\":\(sequence)}"
    }

    static let id = "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654"

    static func response(_ status: String, _ more: String = #""error":null,"incomplete_details":null,"usage":null"#) -> String {
        #""response":{"id":"\#(id)","object":"response","created_at":1741290958,"status":"\#(status)","background":false,\#(more),"instructions":"You are a helpful assistant.","max_output_tokens":null,"model":"gpt-4.1-2025-04-14","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","user":null,"metadata":{}}"#
    }

    static let usage = #""usage":{"input_tokens":37,"input_tokens_details":{"cached_tokens":5},"output_tokens":11,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":48}"#

    static func textDelta(_ text: String, _ sequence: Int) -> String {
        event("response.output_text.delta", #""item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"\#(text)","logprobs":[]"#, sequence)
    }

    /// A plain text reply: created, in progress, a message item with one output_text part,
    /// text deltas, the `.done` events, completed with the usage.
    static let textReply = SSETranscript.sse([
        event("response.created", response("in_progress"), 0),
        event("response.in_progress", response("in_progress"), 1),
        event("response.output_item.added", #""output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"in_progress","role":"assistant","content":[]}"#, 2),
        event("response.content_part.added", #""item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}"#, 3),
        textDelta("Hi", 4),
        textDelta(" there, Zürich 🌤", 5),
        event("response.output_text.done", #""item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"text":"Hi there, Zürich 🌤","logprobs":[]"#, 6),
        event("response.content_part.done", #""item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hi there, Zürich 🌤","annotations":[]}"#, 7),
        event("response.output_item.done", #""output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi there, Zürich 🌤","annotations":[]}]}"#, 8),
        event("response.completed", response("completed", #""error":null,"incomplete_details":null,\#(usage)"#), 9),
    ])

    @Test func textReplyGolden() throws {
        let (deltas, error) = try SSETranscript.decode(Self.textReply, with: .openAIResponses)
        #expect(error == nil)
        let usage = LLMUsage(inputTokens: 37, outputTokens: 11, totalTokens: 48, reasoningTokens: 3, cachedInputTokens: 5)
        #expect(deltas == [.text("Hi"), .text(" there, Zürich 🌤"), .finish("completed"), .usage(usage)])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "Hi there, Zürich 🌤")
        #expect(transcript.isFinished)
        #expect(transcript.usage == usage)
        #expect(transcript.unrecognizedEvents == 0)
    }

    /// The function calling guide's streamed call: the item brings `call_id` and `name`,
    /// the arguments come in fragments, `output_item.done` ends the call; then a custom tool
    /// call's input in the same way.
    static let toolReply = SSETranscript.sse([
        event("response.created", response("in_progress"), 0),
        event("response.output_item.added", #""response_id":"resp_1234xyz","output_index":0,"item":{"type":"function_call","id":"fc_1234xyz","call_id":"call_1234xyz","name":"get_weather","arguments":""}"#, 1),
        event("response.function_call_arguments.delta", #""response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":0,"delta":"{\"""#, 2),
        event("response.function_call_arguments.delta", #""response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":0,"delta":"location\":\"""#, 3),
        event("response.function_call_arguments.delta", #""response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":0,"delta":"Paris, France\"}""#, 4),
        event("response.function_call_arguments.done", #""response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":0,"arguments":"{\"location\":\"Paris, France\"}""#, 5),
        event("response.output_item.done", #""response_id":"resp_1234xyz","output_index":0,"item":{"type":"function_call","id":"fc_1234xyz","call_id":"call_1234xyz","name":"get_weather","arguments":"{\"location\":\"Paris, France\"}"}"#, 6),
        event("response.output_item.added", #""output_index":1,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_grammar","name":"code_exec","input":""}"#, 7),
        event("response.custom_tool_call_input.delta", #""item_id":"ctc_1","output_index":1,"delta":"print(\"hé""#, 8),
        event("response.custom_tool_call_input.delta", #""item_id":"ctc_1","output_index":1,"delta":"llo\")""#, 9),
        event("response.custom_tool_call_input.done", #""item_id":"ctc_1","output_index":1,"input":"print(\"héllo\")""#, 10),
        event("response.output_item.done", #""output_index":1,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_grammar","name":"code_exec","input":"print(\"héllo\")"}"#, 11),
        event("response.completed", response("completed", #""error":null,"incomplete_details":null,\#(usage)"#), 12),
    ])

    @Test func toolCallsGolden() throws {
        let (deltas, error) = try SSETranscript.decode(Self.toolReply, with: .openAIResponses)
        #expect(error == nil)
        #expect(deltas.prefix(10) == [
            .toolCall(LLMToolCallDelta(index: 0, id: "call_1234xyz", name: "get_weather")),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"{""#)),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"location":""#)),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"Paris, France"}"#)),
            .toolCallEnd(index: 0),
            .toolCall(LLMToolCallDelta(index: 1, id: "call_grammar", name: "code_exec")),
            .toolCall(LLMToolCallDelta(index: 1, argumentsFragment: #"print("hé"#)),
            .toolCall(LLMToolCallDelta(index: 1, argumentsFragment: #"llo")"#)),
            .toolCallEnd(index: 1),
            .finish("completed"),
        ])
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed == [
            LLMToolCall(index: 0, id: "call_1234xyz", name: "get_weather", arguments: #"{"location":"Paris, France"}"#, isComplete: true),
            LLMToolCall(index: 1, id: "call_grammar", name: "code_exec", arguments: #"print("héllo")"#, isComplete: true),
        ])
        #expect(transcript.text.isEmpty)
    }

    /// The reasoning guide's streamed summary (two summary parts), a reasoning text part,
    /// then the answer: reasoning never reaches the text.
    static let reasoningReply = SSETranscript.sse([
        event("response.created", response("in_progress"), 0),
        event("response.output_item.added", #""output_index":0,"item":{"id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","type":"reasoning","summary":[]}"#, 1),
        event("response.reasoning_summary_part.added", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}"#, 2),
        event("response.reasoning_summary_text.delta", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":0,"delta":"**Responding to a greeting**\n\nThe user just said, \"Hello!\"""#, 3),
        event("response.reasoning_summary_text.delta", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":0,"delta":" So I greet back.""#, 4),
        event("response.reasoning_summary_text.done", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":0,"text":"**Responding to a greeting**\n\nThe user just said, \"Hello!\" So I greet back.""#, 5),
        event("response.reasoning_summary_part.done", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"…"}"#, 6),
        event("response.reasoning_summary_part.added", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""}"#, 7),
        event("response.reasoning_summary_text.delta", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":1,"delta":"**Keeping it short**""#, 8),
        event("response.reasoning_text.delta", #""item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"content_index":0,"delta":"greet; be brief""#, 9),
        event("response.output_item.done", #""output_index":0,"item":{"id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","type":"reasoning","summary":[{"type":"summary_text","text":"…"}]}"#, 10),
        event("response.output_item.added", #""output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}"#, 11),
        textDelta("Hello!", 12),
        event("response.completed", response("completed", #""error":null,"incomplete_details":null,\#(usage)"#), 13),
    ])

    @Test func reasoningSummaryAndTextAreReasoningBlocks() throws {
        let (deltas, error) = try SSETranscript.decode(Self.reasoningReply, with: .openAIResponses)
        #expect(error == nil)
        #expect(deltas.prefix(5) == [
            .reasoning(LLMReasoningDelta(index: 0, kind: .summary, fragment: "**Responding to a greeting**\n\nThe user just said, \"Hello!\"")),
            .reasoning(LLMReasoningDelta(index: 0, kind: .summary, fragment: " So I greet back.")),
            .reasoning(LLMReasoningDelta(index: 1, kind: .summary, fragment: "**Keeping it short**")),
            .reasoning(LLMReasoningDelta(index: 2, kind: .text, fragment: "greet; be brief")),
            .text("Hello!"),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "Hello!")
        #expect(transcript.reasoning == [
            LLMReasoning(index: 0, summary: "**Responding to a greeting**\n\nThe user just said, \"Hello!\" So I greet back."),
            LLMReasoning(index: 1, summary: "**Keeping it short**"),
            LLMReasoning(index: 2, text: "greet; be brief"),
        ])
    }

    /// A refusal part, and an answer with a web search: the `web_search_call` item and its
    /// events are skipped by name, the `url_citation` annotation is a citation.
    @Test func refusalCitationsAndUnrecognizedEvents() throws {
        let sse = SSETranscript.sse([
            Self.event("response.output_item.added", #""output_index":0,"item":{"id":"ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609","type":"web_search_call","status":"in_progress"}"#, 1),
            Self.event("response.web_search_call.in_progress", #""output_index":0,"item_id":"ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609""#, 2),
            Self.event("response.web_search_call.searching", #""output_index":0,"item_id":"ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609""#, 3),
            Self.event("response.web_search_call.completed", #""output_index":0,"item_id":"ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609""#, 4),
            Self.event("response.output_item.done", #""output_index":0,"item":{"id":"ws_67c9fa0502748190b7dd390736892e100be649c1a5ff9609","type":"web_search_call","status":"completed"}"#, 5),
            Self.event("response.output_item.added", #""output_index":1,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}"#, 6),
            Self.textDelta("Positive news", 7),
            Self.event("response.output_text.annotation.added", #""item_id":"msg_1","output_index":1,"content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","start_index":0,"end_index":13,"url":"https://www.example.com/good-news","title":"Good news — today"}"#, 8),
            Self.event("response.refusal.delta", #""item_id":"msg_1","output_index":1,"content_index":1,"delta":"I can't help ""#, 9),
            Self.event("response.refusal.delta", #""item_id":"msg_1","output_index":1,"content_index":1,"delta":"with that.""#, 10),
            Self.event("response.refusal.done", #""item_id":"msg_1","output_index":1,"content_index":1,"refusal":"I can't help with that.""#, 11),
            Self.event("response.image_generation_call.partial_image", #""output_index":2,"item_id":"ig_1","partial_image_index":0,"partial_image_b64":"iVBORw0KGgo=""#, 12),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .openAIResponses)
        #expect(error == nil)
        let citation = LLMCitation(
            type: "url_citation", url: "https://www.example.com/good-news", title: "Good news — today",
            json: #"{"end_index":13,"start_index":0,"title":"Good news — today","type":"url_citation","url":"https://www.example.com/good-news"}"#)
        #expect(deltas == [
            .unrecognized("web_search_call"), .unrecognized("response.web_search_call.in_progress"),
            .unrecognized("response.web_search_call.searching"), .unrecognized("response.web_search_call.completed"),
            .text("Positive news"), .citation(citation), .refusal("I can't help "), .refusal("with that."),
            .unrecognized("response.image_generation_call.partial_image"),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.refusal == "I can't help with that.")
        #expect(transcript.citations == [citation])
        #expect(transcript.text == "Positive news")
        #expect(transcript.unrecognizedEvents == 5)
    }

    @Test(arguments: ["max_output_tokens", "content_filter"]) func incompleteFinishesWithItsReason(reason: String) throws {
        let sse = SSETranscript.sse([
            Self.textDelta("Once upon", 4),
            Self.event("response.incomplete", Self.response("incomplete", #""error":null,"incomplete_details":{"reason":"\#(reason)"},\#(Self.usage)"#), 5),
        ])
        let (deltas, error) = try SSETranscript.decode(sse, with: .openAIResponses)
        #expect(error == nil)
        #expect(deltas.prefix(2) == [.text("Once upon"), .finish(LLMFinishReason(reason))])
        #expect(deltas.count == 3)
    }

    @Test func failedAndErrorEventsAreStreamErrors() throws {
        var d = OpenAIResponsesDecoder()
        let failed = Self.event(
            "response.failed", Self.response("failed", #""error":{"code":"server_error","message":"The model failed to generate a response."},"incomplete_details":null,"usage":null"#), 3)
        let failedDeltas = try SSETranscript.decode(SSETranscript.sse([failed]), with: d).deltas
        guard case .error(let failure)? = failedDeltas.first, failedDeltas.count == 1 else {
            Issue.record("\(failedDeltas)")
            return
        }
        #expect(failure.code == .streamError)
        #expect(failure.detail == "openai-responses server_error")
        #expect(failure.bodyExcerpt == "The model failed to generate a response.")
        let data = #"{"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":1}"#
        let deltas = try d.decode(.sse(type: "error", data: data, id: ""))
        guard case .error(let error)? = deltas.first else {
            Issue.record("\(deltas)")
            return
        }
        #expect(error.code == .streamError)
        #expect(error.detail == "openai-responses ERR_SOMETHING")
        #expect(error.bodyExcerpt == data)
        // The same fields under `error`, and a code that is null.
        let nested = try d.decode(.sse(type: "error", data: #"{"type":"error","error":{"type":"invalid_request_error","code":null,"message":"x"},"sequence_number":2}"#, id: ""))
        #expect(Self.errorDetail(nested) == "openai-responses invalid_request_error")
        let none = try d.decode(.sse(type: "error", data: #"{"type":"error","code":null,"message":"x","sequence_number":3}"#, id: ""))
        #expect(Self.errorDetail(none) == "openai-responses error object")
    }

    static func errorDetail(_ deltas: [LLMDelta]) -> String? {
        guard case .error(let error)? = deltas.first else { return nil }
        return error.detail
    }

    /// A call whose `added` event was not seen (a stream resumed after it) still decodes:
    /// fragments start the call, and `done` brings it whole when no fragment came.
    @Test func callsWhoseAddedWasNotSeen() throws {
        var d = OpenAIResponsesDecoder()
        #expect(try d.decode(.sse(type: "response.function_call_arguments.delta", data: #"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":3,"delta":"{}","sequence_number":9}"#, id: "")) == [
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: "{}"))
        ])
        #expect(try d.decode(.sse(type: "response.output_item.done", data: #"{"type":"response.output_item.done","output_index":4,"item":{"type":"function_call","id":"fc_2","call_id":"call_2","name":"f","arguments":"{\"a\":1}"},"sequence_number":10}"#, id: "")) == [
            .toolCall(LLMToolCallDelta(index: 1, id: "call_2", name: "f", argumentsFragment: #"{"a":1}"#)), .toolCallEnd(index: 1),
        ])
    }

    @Test func malformedEventsThrowProtocolViolation() throws {
        SSETranscript.expectViolations(OpenAIResponsesDecoder(), [
            ("message", #"{"sequence_number":1}"#, "openai-responses: an event without a 'type'"),
            ("response.output_text.delta", "{", "openai-responses: the event's data is not valid JSON"),
            ("response.output_text.delta", #"{"type":"response.output_text.delta","output_index":0}"#, "openai-responses: response.output_text.delta without 'delta'"),
            ("response.output_text.delta", #"{"type":"response.output_text.delta","delta":7}"#, "openai-responses: 'delta' has the wrong type"),
            ("response.output_item.added", #"{"type":"response.output_item.added","output_index":0}"#, "openai-responses: response.output_item.added without 'output_index' and 'item'"),
            ("response.function_call_arguments.delta", #"{"type":"response.function_call_arguments.delta","delta":"x"}"#, "openai-responses: response.function_call_arguments.delta without 'output_index'"),
            ("response.reasoning_summary_text.delta", #"{"type":"response.reasoning_summary_text.delta","output_index":0,"delta":"x"}"#, "openai-responses: response.reasoning_summary_text.delta without 'output_index' and 'summary_index'"),
        ])
    }

    /// An event type this version does not know is skipped whole, whatever its fields hold
    /// (an audio `delta` that is not text, an `item` that is a string).
    @Test func unknownEventTypesAreSkippedWhateverTheirFields() throws {
        var d = OpenAIResponsesDecoder()
        for (type, data, name) in [
            ("response.audio.delta", #"{"type":"response.audio.delta","delta":{"b64":1},"sequence_number":1}"#, "response.audio.delta"),
            ("response.future", #"{"type":"response.future","item":"x","output_index":"first"}"#, "response.future"),
            ("message", #"{"type":"not an identifier!"}"#, ""),
            ("response.mcp_call.in_progress", #"{"type":"not an identifier!"}"#, "response.mcp_call.in_progress"),
        ] {
            #expect(try d.decode(.sse(type: type, data: data, id: "")) == [.unrecognized(name)], "\(data)")
        }
    }

    /// The terminator is delivered and matches the four end events by SSE type, or by the
    /// data's top-level type without `event:` lines; nothing else ends the reply.
    @Test func terminatorMatchesTheEndEvents() throws {
        let terminator = try #require(OpenAIResponsesDecoder.terminator)
        #expect(terminator.delivered)
        for type in ["response.completed", "response.incomplete", "response.failed", "error"] {
            #expect(terminator.matches(.sse(type: type, data: "{}", id: "")), "\(type)")
            #expect(terminator.matches(.sse(type: "message", data: #"{"sequence_number":3, "type" : "\#(type)"}"#, id: "")), "\(type)")
        }
        for (type, data) in [
            ("response.output_text.delta", #"{"type":"response.completed"}"#),
            ("message", #"{"type":"response.output_text.delta","delta":"\"type\":\"response.completed\""}"#),
            ("message", #"{"item":{"type":"response.completed"},"type":"response.in_progress"}"#),
            ("message", "not json"),
        ] {
            #expect(!terminator.matches(.sse(type: type, data: data, id: "")), "\(data)")
        }
    }

    /// Golden sequences with mutated data never crash the decoder: each message decodes or
    /// throws `protocol_violation`.
    @Test(arguments: 1...40) func mutatedEventsNeverCrash(seed: UInt64) throws {
        for sse in [Self.textReply, Self.toolReply, Self.reasoningReply] {
            try SSETranscript.expectMutationsAreSafe(sse, with: OpenAIResponsesDecoder(), seed: seed)
        }
    }
}

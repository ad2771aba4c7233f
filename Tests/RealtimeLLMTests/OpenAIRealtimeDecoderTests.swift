import RealtimeCore
import RealtimeLLM
import Testing

/// The golden sequences below follow the OpenAI API reference, "Realtime server events"
/// (each event's documented fields, both the generally available names and the beta's), sent
/// as WebSocket text frames. The peer `Tests/Peers/openai_realtime.py`, whose every event the
/// `openai` SDK's models check, is what the client is run against in `RealtimeTests`.
@Suite(.timeLimit(.minutes(1))) struct OpenAIRealtimeDecoderTests {
    static func event(_ type: String, _ fields: String, id: Int) -> String {
        #"{"type":"\#(type)","event_id":"event_\#(id)",\#(fields)}"#
    }

    static func part(_ type: String, response: String = "resp_001", item: String = "item_001", delta: String, id: Int) -> String {
        event(type, #""response_id":"\#(response)","item_id":"\#(item)","output_index":0,"content_index":0,"delta":"\#(delta)""#, id: id)
    }

    static let usage = #""usage":{"total_tokens":253,"input_tokens":132,"output_tokens":121,"input_token_details":{"text_tokens":119,"audio_tokens":13,"cached_tokens":64,"cached_tokens_details":{"text_tokens":64,"audio_tokens":0}},"output_token_details":{"text_tokens":30,"audio_tokens":91}}"#

    static func done(_ status: String, _ details: String = "null", response: String = "resp_001") -> String {
        event("response.done", #""response":{"id":"\#(response)","object":"realtime.response","status":"\#(status)","status_details":\#(details),"output":[],"conversation_id":"conv_001","output_modalities":["audio"],\#(usage)}"#, id: 99)
    }

    static let expectedUsage = LLMUsage(inputTokens: 132, outputTokens: 121, totalTokens: 253, cachedInputTokens: 64)

    static let lifecycle = [
        event("session.created", #""session":{"type":"realtime","object":"realtime.session","id":"sess_001","model":"gpt-realtime"}"#, id: 1),
        event("session.updated", #""session":{"type":"realtime","id":"sess_001","instructions":"Be brief."}"#, id: 2),
        event("conversation.item.added", #""previous_item_id":null,"item":{"id":"item_000","type":"message","role":"user","content":[{"type":"input_text","text":"Hi"}]}"#, id: 3),
        event("conversation.item.done", #""previous_item_id":null,"item":{"id":"item_000","type":"message","role":"user","status":"completed","content":[{"type":"input_text","text":"Hi"}]}"#, id: 4),
        event("response.created", #""response":{"id":"resp_001","object":"realtime.response","status":"in_progress","output":[]}"#, id: 5),
        event("rate_limits.updated", #""rate_limits":[{"name":"tokens","limit":40000,"remaining":39000,"reset_seconds":1.5}]"#, id: 6),
    ]

    static func messageItem(_ part: String) -> [String] {
        [
            event("response.output_item.added", #""response_id":"resp_001","output_index":0,"item":{"id":"item_001","object":"realtime.item","type":"message","status":"in_progress","role":"assistant","content":[]}"#, id: 7),
            event("response.content_part.added", #""response_id":"resp_001","item_id":"item_001","output_index":0,"content_index":0,"part":{"type":"\#(part)","transcript":""}"#, id: 8),
        ]
    }

    /// An audio reply in the generally available names: audio in base64, its transcript.
    static func audioReply(beta: Bool) -> [String] {
        let audio = beta ? "response.audio" : "response.output_audio"
        let transcript = beta ? "response.audio_transcript" : "response.output_audio_transcript"
        return lifecycle + messageItem("audio") + [
            part("\(audio).delta", delta: "AAECAwQF", id: 10),
            part("\(transcript).delta", delta: "Hello, Zürich", id: 11),
            part("\(audio).delta", delta: "BgcI/w==", id: 12),
            part("\(transcript).delta", delta: " 🌤!", id: 13),
            event("\(audio).done", #""response_id":"resp_001","item_id":"item_001","output_index":0,"content_index":0"#, id: 14),
            event("\(transcript).done", #""response_id":"resp_001","item_id":"item_001","output_index":0,"content_index":0,"transcript":"Hello, Zürich 🌤!""#, id: 15),
            event("response.content_part.done", #""response_id":"resp_001","item_id":"item_001","output_index":0,"content_index":0,"part":{"type":"audio","transcript":"Hello, Zürich 🌤!"}"#, id: 16),
            event("response.output_item.done", #""response_id":"resp_001","output_index":0,"item":{"id":"item_001","type":"message","status":"completed","role":"assistant","content":[{"type":"output_audio","transcript":"Hello, Zürich 🌤!"}]}"#, id: 17),
            done("completed"),
        ]
    }

    @Test(arguments: [false, true]) func audioReplyGolden(beta: Bool) throws {
        let (deltas, error) = try WebSocketTranscript.decode(Self.audioReply(beta: beta), with: .openAIRealtime)
        #expect(error == nil)
        #expect(deltas == [
            .audio(LLMAudioDelta(itemID: "item_001", bytes: [0, 1, 2, 3, 4, 5])), .text("Hello, Zürich"),
            .audio(LLMAudioDelta(itemID: "item_001", bytes: [6, 7, 8, 255])), .text(" 🌤!"),
            .usage(Self.expectedUsage), .finish("completed"),
        ])
        var transcript = LLMTranscript()
        transcript.apply(contentsOf: deltas)
        #expect(transcript.text == "Hello, Zürich 🌤!")
        #expect(transcript.audio == [0, 1, 2, 3, 4, 5, 6, 7, 8, 255])
        #expect(transcript.isFinished)
        #expect(transcript.unrecognizedEvents == 0)
    }

    @Test(arguments: [false, true]) func textReplyGolden(beta: Bool) throws {
        let text = beta ? "response.text" : "response.output_text"
        let events = Self.lifecycle + Self.messageItem("text") + [
            Self.part("\(text).delta", delta: "Two ", id: 10), Self.part("\(text).delta", delta: "", id: 11),
            Self.part("\(text).delta", delta: "words \\\"quoted\\\"", id: 12),
            Self.event("\(text).done", #""response_id":"resp_001","item_id":"item_001","output_index":0,"content_index":0,"text":"Two words""#, id: 13),
            Self.done("completed"),
        ]
        let (deltas, error) = try WebSocketTranscript.decode(events, with: .openAIRealtime)
        #expect(error == nil)
        #expect(deltas == [.text("Two "), .text("words \"quoted\""), .usage(Self.expectedUsage), .finish("completed")])
    }

    /// The function calling guide's call: the item brings `call_id` and `name`, the arguments
    /// come in fragments found by `item_id`, `output_item.done` ends the call; a second call in
    /// the same response is index 1, and a call whose `added` was not seen arrives whole.
    @Test func functionCallGolden() throws {
        func call(_ item: String, _ callID: String, output: Int, done: Bool, arguments: String) -> String {
            let kind = done ? "response.output_item.done" : "response.output_item.added"
            return Self.event(kind, #""response_id":"resp_001","output_index":\#(output),"item":{"id":"\#(item)","object":"realtime.item","type":"function_call","status":"\#(done ? "completed" : "in_progress")","call_id":"\#(callID)","name":"get_weather","arguments":"\#(arguments)"}"#, id: 20 + output)
        }
        func arguments(_ item: String, _ delta: String) -> String {
            Self.event("response.function_call_arguments.delta", #""response_id":"resp_001","item_id":"\#(item)","output_index":0,"call_id":"call_x","delta":"\#(delta)""#, id: 30)
        }
        let events = Self.lifecycle + [
            call("item_a", "call_a", output: 0, done: false, arguments: ""),
            arguments("item_a", #"{\"city\":"#), arguments("item_a", #"\"Paris\"}"#),
            Self.event("response.function_call_arguments.done", #""response_id":"resp_001","item_id":"item_a","output_index":0,"call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}""#, id: 31),
            call("item_a", "call_a", output: 0, done: true, arguments: #"{\"city\":\"Paris\"}"#),
            call("item_b", "call_b", output: 1, done: true, arguments: #"{\"city\":\"Oslo\"}"#),
            Self.done("completed"),
        ]
        let (deltas, error) = try WebSocketTranscript.decode(events, with: .openAIRealtime)
        #expect(error == nil)
        var transcript = LLMTranscript()
        let completed = transcript.apply(contentsOf: deltas)
        #expect(completed.map(\.index) == [0, 1])
        #expect(completed.map(\.id) == ["call_a", "call_b"])
        #expect(completed.map(\.name) == ["get_weather", "get_weather"])
        #expect(completed.map(\.arguments) == [#"{"city":"Paris"}"#, #"{"city":"Oslo"}"#])
        #expect(transcript.finishReason == "completed")
    }

    /// Two responses at once (an out-of-band response beside the conversation's): fragments
    /// find their call by item, and each response numbers its calls from 0.
    @Test func interleavedResponsesKeepTheirCalls() throws {
        func added(_ response: String, _ item: String) -> String {
            Self.event("response.output_item.added", #""response_id":"\#(response)","output_index":0,"item":{"id":"\#(item)","type":"function_call","call_id":"c_\#(item)","name":"f","arguments":""}"#, id: 1)
        }
        func fragment(_ response: String, _ item: String, _ delta: String) -> String {
            Self.event("response.function_call_arguments.delta", #""response_id":"\#(response)","item_id":"\#(item)","output_index":0,"call_id":"c_\#(item)","delta":"\#(delta)""#, id: 2)
        }
        var decoder = OpenAIRealtimeDecoder()
        var deltas: [LLMDelta] = []
        for event in [added("r1", "i1"), added("r2", "i2"), fragment("r2", "i2", "B"), fragment("r1", "i1", "A"),
                      Self.done("completed", response: "r1"), added("r1b", "i3")] {
            try decoder.decode(.init(content: .text(event)), into: &deltas)
        }
        #expect(deltas[0] == .toolCall(LLMToolCallDelta(index: 0, id: "c_i1", name: "f")))
        #expect(deltas[1] == .toolCall(LLMToolCallDelta(index: 0, id: "c_i2", name: "f")))
        #expect(deltas[2] == .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: "B")))
        #expect(deltas[3] == .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: "A")))
        #expect(deltas.last == .toolCall(LLMToolCallDelta(index: 0, id: "c_i3", name: "f")))
    }

    @Test func responseOutcomes() throws {
        func outcome(_ done: String) throws -> [LLMDelta] {
            try WebSocketTranscript.decode([done], with: .openAIRealtime).deltas
        }
        #expect(try outcome(Self.done("cancelled", #"{"type":"cancelled","reason":"turn_detected"}"#))
            == [.usage(Self.expectedUsage), .finish("turn_detected")])
        #expect(try outcome(Self.done("incomplete", #"{"type":"incomplete","reason":"max_output_tokens"}"#))
            == [.usage(Self.expectedUsage), .finish("max_output_tokens")])
        #expect(try outcome(Self.done("cancelled")) == [.usage(Self.expectedUsage), .finish("cancelled")])
        let failed = try outcome(Self.done("failed", #"{"type":"failed","error":{"type":"server_error","code":"internal_error","message":"The model failed."}}"#))
        #expect(failed.count == 2)
        #expect(failed.first == .usage(Self.expectedUsage))
        guard case .error(let error) = failed.last else { Issue.record("no error"); return }
        #expect(error.code == .streamError)
        #expect(error.detail == "openai-realtime internal_error")
        #expect(error.bodyExcerpt == "The model failed.")
    }

    /// An `error` event is reported, and what follows still decodes (the session goes on).
    @Test func errorEventsAreDeltasAndTheSessionGoesOn() throws {
        let events = [
            Self.event("error", #""error":{"type":"invalid_request_error","code":"invalid_value","message":"Invalid value: 'x'.","param":"session.voice","event_id":"evt_client_1"}"#, id: 1),
            Self.part("response.output_text.delta", delta: "after", id: 2),
        ]
        let (deltas, error) = try WebSocketTranscript.decode(events, with: .openAIRealtime)
        #expect(error == nil)
        guard case .error(let failure) = deltas.first else { Issue.record("no error"); return }
        #expect(failure.detail == "openai-realtime invalid_value")
        #expect(failure.bodyExcerpt == "Invalid value: 'x'.")
        #expect(deltas.last == .text("after"))
        #expect(OpenAIRealtimeDecoder.carriesManyReplies)
    }

    @Test func otherEventsAreNamedAndSkipped() throws {
        let events = [
            Self.event("input_audio_buffer.speech_started", #""audio_start_ms":1000,"item_id":"item_002""#, id: 1),
            Self.event("conversation.item.input_audio_transcription.delta", #""item_id":"item_002","content_index":0,"delta":"Hel""#, id: 2),
            Self.event("response.mcp_call.in_progress", #""item_id":"item_003","output_index":0"#, id: 3),
            Self.event("response.output_item.added", #""response_id":"r","output_index":0,"item":{"id":"m","type":"mcp_call"}"#, id: 4),
        ]
        let (deltas, error) = try WebSocketTranscript.decode(events, with: .openAIRealtime)
        #expect(error == nil)
        #expect(deltas == [
            .unrecognized("input_audio_buffer.speech_started"),
            .unrecognized("conversation.item.input_audio_transcription.delta"),
            .unrecognized("response.mcp_call.in_progress"), .unrecognized("mcp_call"),
        ])
    }

    @Test func malformedEventsAreProtocolViolations() {
        let cases: [(String, String)] = [
            ("not json", "openai-realtime: the event's data is not valid JSON"),
            (#"{"event_id":"e"}"#, "openai-realtime: an event without a 'type'"),
            (#"{"type":"response.output_text.delta","item_id":"i"}"#, "openai-realtime: response.output_text.delta without 'delta'"),
            (#"{"type":"response.output_audio.delta","item_id":"i","delta":"not base64!"}"#, "openai-realtime: response.output_audio.delta whose 'delta' is not base64"),
            (#"{"type":"response.output_item.added","output_index":0}"#, "openai-realtime: response.output_item.added without 'item'"),
            (#"{"type":"response.done"}"#, "openai-realtime: response.done without 'response'"),
            (#"{"type":"response.function_call_arguments.delta","delta":"x"}"#, "openai-realtime: response.function_call_arguments.delta without 'item_id'"),
            (#"{"type":"response.output_text.delta","delta":7}"#, "openai-realtime: 'delta' has the wrong type"),
        ]
        for (data, detail) in cases {
            var decoder = OpenAIRealtimeDecoder()
            do {
                _ = try decoder.decode(Message(content: .text(data)))
                Issue.record("no error for \(data)")
            } catch {
                #expect(error.code == .protocolViolation)
                #expect(error.detail == detail, "\(data)")
            }
        }
    }

    /// A server that opens calls and never ends them is stopped at the bound.
    @Test func openCallsAreBounded() throws {
        var decoder = OpenAIRealtimeDecoder()
        for n in 0..<OpenAIRealtimeDecoder.maxOpenToolCalls {
            _ = try decoder.decode(Message(content: .text(#"{"type":"response.function_call_arguments.delta","response_id":"r\#(n)","item_id":"i\#(n)","delta":"x"}"#)))
        }
        #expect(throws: RealtimeError.self) {
            _ = try decoder.decode(Message(content: .text(#"{"type":"response.function_call_arguments.delta","response_id":"r","item_id":"last","delta":"x"}"#)))
        }
        // A response's end frees its calls.
        _ = try decoder.decode(Message(content: .text(Self.done("completed", response: "r0"))))
        _ = try decoder.decode(Message(content: .text(#"{"type":"response.function_call_arguments.delta","response_id":"r","item_id":"last","delta":"x"}"#)))
    }

    @Test func clientEventsAreValidJSON() throws {
        let messages: [(OutboundMessage, String)] = [
            (OpenAIRealtimeEvent.userMessage("Say \"hi\"\n\u{1}\\ 🌤"), #"{"type":"conversation.item.create","item":{"type":"message","role":"user","content":[{"type":"input_text","text":"Say \"hi\"\n\u0001\\ 🌤"}]}}"#),
            (OpenAIRealtimeEvent.functionCallOutput(callID: "call_1", output: #"{"t":21}"#), #"{"type":"conversation.item.create","item":{"type":"function_call_output","call_id":"call_1","output":"{\"t\":21}"}}"#),
            (OpenAIRealtimeEvent.createResponse(), #"{"type":"response.create"}"#),
            (OpenAIRealtimeEvent.cancelResponse(), #"{"type":"response.cancel"}"#),
            (OpenAIRealtimeEvent.appendAudio([0, 1, 2, 255]), #"{"type":"input_audio_buffer.append","audio":"AAEC/w=="}"#),
            (OpenAIRealtimeEvent.commitAudio(), #"{"type":"input_audio_buffer.commit"}"#),
            (try OpenAIRealtimeEvent.sessionUpdate(session: Array(#"{"type":"realtime"}"#.utf8)), #"{"type":"session.update","session":{"type":"realtime"}}"#),
        ]
        for (message, expected) in messages {
            #expect(message == .text(expected))
        }
        #expect(throws: RealtimeError.self) { try OpenAIRealtimeEvent.sessionUpdate(session: Array("[1]".utf8)) }
        #expect(throws: RealtimeError.self) { try OpenAIRealtimeEvent.sessionUpdate(session: Array(#"{"a":1} x"#.utf8)) }
    }

    @Test func handshakeHelpersReadTheType() {
        #expect(OpenAIRealtimeEvent.type(of: Message(content: .text(Self.lifecycle[0]))) == "session.created")
        #expect(OpenAIRealtimeEvent.error(in: Message(content: .text(Self.lifecycle[0]))) == nil)
        let error = OpenAIRealtimeEvent.error(in: Message(content: .text(#"{"type":"error","error":{"type":"invalid_request_error","message":"No."}}"#)))
        #expect(error?.detail == "openai-realtime invalid_request_error")
    }

    /// Golden sessions with mutated data never crash the decoder: each message decodes or
    /// throws `protocol_violation`.
    @Test(arguments: 1...40) func mutatedEventsNeverCrash(seed: UInt64) throws {
        for events in [Self.audioReply(beta: false), Self.audioReply(beta: true)] {
            let sse = SSETranscript.sse(events.map { "data: " + $0 })
            try SSETranscript.expectMutationsAreSafe(sse, with: OpenAIRealtimeDecoder(), seed: seed)
        }
    }
}

#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// The events of an OpenAI Realtime session that are not a reply's content, through
/// `deltas(format: .openAIRealtime)` on the embedded stack, as ``OpenAIRealtimeDecoder``
/// promises: lifecycle events are nothing, other events are named, `error` events are errors
/// the session survives, and malformed events end the session.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedOpenAIRealtimeEventTests {
    typealias Reply = EmbeddedOpenAIRealtimeReplyTests

    /// A reply of one text delta, `text`, completed.
    static func reply(_ text: String) -> [String] {
        [Reply.delta("response.output_text.delta", text), Reply.done("completed")]
    }

    /// Session, conversation and response lifecycle events, rate limits and the input audio
    /// buffer's acknowledgements are no delta: the reply around them reads as if they were absent.
    @Test func lifecycleEventsAreNoDelta() async throws {
        let item = #""item":{"id":"item_1","type":"message","role":"user","content":[]}"#
        let deltas = try await Reply.deltas(of: [
            EmbeddedOpenAIRealtimeTests.updated,
            #"{"type":"input_audio_buffer.committed","event_id":"e1","previous_item_id":null,"item_id":"item_0"}"#,
            #"{"type":"input_audio_buffer.cleared","event_id":"e2"}"#,
            #"{"type":"conversation.item.created","event_id":"e3","previous_item_id":null,\#(item)}"#,
            #"{"type":"conversation.item.added","event_id":"e4","previous_item_id":null,\#(item)}"#,
            #"{"type":"conversation.item.done","event_id":"e5","previous_item_id":null,\#(item)}"#,
            #"{"type":"rate_limits.updated","event_id":"e6","rate_limits":[{"name":"tokens","limit":1000,"remaining":990,"reset_seconds":6}]}"#,
            #"{"type":"response.created","event_id":"e7","response":{"id":"resp_1","status":"in_progress"}}"#,
            Reply.event("response.output_item.added", #""item":{"id":"item_1","type":"message","role":"assistant","content":[]}"#),
            Reply.event("response.content_part.added", #""part":{"type":"text","text":""}"#),
        ] + Self.reply("Hi") + [#"{"type":"conversation.item.deleted","event_id":"e8","item_id":"item_0"}"#] + Self.reply("Bye"),
            finishes: 2)
        #expect(deltas == [.text("Hi"), .finish("completed"), .text("Bye"), .finish("completed")])
    }

    /// Voice activity and input audio transcription events are `unrecognized` with their type, and the reply goes on.
    @Test func inputAudioEventsAreUnrecognizedByType() async throws {
        let deltas = try await Reply.deltas(of: [
            #"{"type":"input_audio_buffer.speech_started","event_id":"e1","audio_start_ms":100,"item_id":"item_0"}"#,
            #"{"type":"input_audio_buffer.speech_stopped","event_id":"e2","audio_end_ms":900,"item_id":"item_0"}"#,
            #"{"type":"conversation.item.input_audio_transcription.completed","event_id":"e3","item_id":"item_0","content_index":0,"transcript":"Hello"}"#,
        ] + Self.reply("Hi"))
        #expect(deltas == [
            .unrecognized("input_audio_buffer.speech_started"), .unrecognized("input_audio_buffer.speech_stopped"),
            .unrecognized("conversation.item.input_audio_transcription.completed"), .text("Hi"), .finish("completed"),
        ])
    }

    /// An event type newer than the decoder is `unrecognized` with its type; the session goes on.
    @Test func anUnknownEventTypeIsUnrecognizedAndTheSessionGoesOn() async throws {
        let deltas = try await Reply.deltas(of: [
            #"{"type":"response.hologram.delta","event_id":"e1","delta":"Zm9v"}"#,
        ] + Self.reply("Hi"))
        #expect(deltas == [.unrecognized("response.hologram.delta"), .text("Hi"), .finish("completed")])
    }

    /// An output item other than a message or a function call is `unrecognized` with the item's type; a message item is nothing.
    @Test func anOutputItemOfAnotherKindIsUnrecognizedByItsType() async throws {
        let deltas = try await Reply.deltas(of: [
            Reply.event("response.output_item.added", #""item":{"id":"item_1","type":"message","role":"assistant","content":[]}"#),
            Reply.event("response.output_item.added", #""item":{"id":"item_2","type":"mcp_call","name":"search","arguments":""}"#),
        ] + Self.reply("Hi"))
        #expect(deltas == [.unrecognized("mcp_call"), .text("Hi"), .finish("completed")])
    }

    /// An `error` event (naming the client event it refused by `event_id`) is a `stream_error`
    /// delta with the error's code, or its type without one, in the detail and its message as
    /// the body excerpt; the session goes on.
    @Test(arguments: [
        (#""type":"invalid_request_error","code":"conversation_already_has_active_response""#,
         "openai-realtime conversation_already_has_active_response"),
        (#""type":"invalid_request_error""#, "openai-realtime invalid_request_error"),
    ])
    func anErrorEventIsAStreamErrorAndTheSessionGoesOn(error fields: String, detail: String) async throws {
        let refused = #"{"type":"error","event_id":"event_7","error":{\#(fields),"message":"A response is already in progress.","param":null,"event_id":"client_evt_3"}}"#
        let deltas = try await Reply.deltas(of: [refused] + Self.reply("Hi"))
        guard deltas.count == 3, case .error(let error) = deltas[0] else { Issue.record("\(deltas)"); return }
        #expect(error.code == .streamError)
        #expect(error.detail == detail)
        #expect(error.bodyExcerpt == "A response is already in progress.")
        #expect(Array(deltas.dropFirst()) == [.text("Hi"), .finish("completed")])
    }

    /// Malformed events are `protocol_violation`, the session's last delta: an event without
    /// a type, a known event without its `delta`, audio that is not base64, a `response.done`
    /// without its `response`.
    @Test(arguments: [
        #"{"event_id":"e1","delta":"Hi"}"#,
        #"{"type":"response.output_text.delta","event_id":"e1","item_id":"item_1"}"#,
        #"{"type":"response.output_audio.delta","event_id":"e1","item_id":"item_1","delta":"not base64!"}"#,
        #"{"type":"response.done","event_id":"e1"}"#,
    ])
    func aMalformedEventEndsTheSessionWithAProtocolViolation(event: String) async throws {
        let deltas = try await Reply.deltas(of: Self.reply("Hi") + [event] + Self.reply("Never"), finishes: 2)
        guard deltas.count == 3, case .error(let error) = deltas[2] else { Issue.record("\(deltas)"); return }
        #expect(Array(deltas.prefix(2)) == [.text("Hi"), .finish("completed")])
        #expect(error.code == .protocolViolation, "\(error)")
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// Replies of an OpenAI Realtime session through `deltas(format: .openAIRealtime)` on the
/// embedded stack, after the preset's handshake, as ``OpenAIRealtimeDecoder`` promises: text
/// and audio in both spellings, how `response.done` ends a reply by its status, and several
/// replies on one session.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedOpenAIRealtimeReplyTests {
    /// The deltas of `events`, sent on a configured session, read until the `finishes`th
    /// finish (or the end of the deltas); the session stays one connection throughout.
    static func deltas(of events: [String], finishes: Int = 1) async throws -> [LLMDelta] {
        let t = try EmbeddedOpenAIRealtimeTests.client()
        defer { t.client.close() }
        let reading = Task { () -> [LLMDelta] in
            var deltas: [LLMDelta] = []
            var left = finishes
            for await delta in t.client.deltas(format: .openAIRealtime) {
                deltas.append(delta)
                if case .finish = delta { left -= 1 }
                if left == 0 { break }
            }
            return deltas
        }
        let server = try await EmbeddedOpenAIRealtimeDeltaTests.configuredSession(t)
        for event in events { server.sendText(event) }
        let deltas = await t.pumping { await reading.value }
        #expect(t.connectionCount == 1)
        return deltas
    }

    /// A server event of `type` for response `resp_1` and item `item_1`, with `fields` (JSON members) added.
    static func event(_ type: String, _ fields: String = "") -> String {
        let extra = fields.isEmpty ? "" : ",\(fields)"
        return #"{"type":"\#(type)","event_id":"ev","response_id":"resp_1","item_id":"item_1","output_index":0,"content_index":0\#(extra)}"#
    }

    /// A `\(type)` event carrying `delta` as a JSON string.
    static func delta(_ type: String, _ delta: String) -> String {
        event(type, #""delta":\#(JSONString.quoted(delta))"#)
    }

    /// `response.done` of `id` with `status`, and `details` (a JSON value) as `status_details` when given.
    static func done(_ status: String, details: String = "null", usage: String? = nil, id: String = "resp_1") -> String {
        let usage = usage.map { #","usage":\#($0)"# } ?? ""
        return #"{"type":"response.done","event_id":"ev_done","response":{"id":"\#(id)","object":"realtime.response","status":"\#(status)","status_details":\#(details),"output":[]\#(usage)}}"#
    }

    static let usage = #"{"total_tokens":12,"input_tokens":8,"output_tokens":4,"input_token_details":{"cached_tokens":2}}"#

    /// Text deltas, in the generally available spelling and the beta's, and the audio
    /// transcript's in both: each is a `text` delta, in order; the `.done` events whose
    /// content the deltas carried add nothing.
    @Test(arguments: [
        ("response.output_text.delta", "response.output_text.done"),
        ("response.text.delta", "response.text.done"),
        ("response.output_audio_transcript.delta", "response.output_audio_transcript.done"),
        ("response.audio_transcript.delta", "response.audio_transcript.done"),
    ])
    func eachTextSpellingIsTextInOrder(delta type: String, done: String) async throws {
        let deltas = try await Self.deltas(of: [
            Self.delta(type, "Hel"), Self.delta(type, "lo, "), Self.delta(type, "Oslo"),
            Self.event(done, #""text":"Hello, Oslo","transcript":"Hello, Oslo""#), Self.done("completed"),
        ])
        #expect(deltas == [.text("Hel"), .text("lo, "), .text("Oslo"), .finish("completed")])
    }

    /// `response.output_audio.delta` (and the beta's `response.audio.delta`) is an `audio`
    /// delta with the base64 decoded and the event's `item_id`; `.done` adds nothing.
    @Test(arguments: [
        ("response.output_audio.delta", "response.output_audio.done"), ("response.audio.delta", "response.audio.done"),
    ])
    func audioIsDecodedFromBase64WithItsItem(delta type: String, done: String) async throws {
        let first: [UInt8] = [0x00, 0x01, 0xFF, 0x7F]
        let second: [UInt8] = Array(0..<48)
        let deltas = try await Self.deltas(of: [
            Self.delta(type, Data(first).base64EncodedString()), Self.delta(type, Data(second).base64EncodedString()),
            Self.event(done), Self.done("completed"),
        ])
        #expect(deltas == [
            .audio(LLMAudioDelta(itemID: "item_1", bytes: first)), .audio(LLMAudioDelta(itemID: "item_1", bytes: second)),
            .finish("completed"),
        ])
    }

    /// An audio reply carries its audio and its transcript interleaved; the deltas keep the wire's order.
    @Test func audioAndItsTranscriptKeepTheWireOrder() async throws {
        let deltas = try await Self.deltas(of: [
            Self.delta("response.output_audio_transcript.delta", "Hi"),
            Self.delta("response.output_audio.delta", Data([1, 2]).base64EncodedString()),
            Self.delta("response.output_audio_transcript.delta", " there"),
            Self.delta("response.output_audio.delta", Data([3]).base64EncodedString()),
            Self.done("completed"),
        ])
        #expect(deltas == [
            .text("Hi"), .audio(LLMAudioDelta(itemID: "item_1", bytes: [1, 2])),
            .text(" there"), .audio(LLMAudioDelta(itemID: "item_1", bytes: [3])), .finish("completed"),
        ])
    }

    /// ``LLMTranscript`` collects an audio reply: the transcript's text, the audio's bytes in order, the finish.
    @Test func aTranscriptCollectsAnAudioReply() async throws {
        let deltas = try await Self.deltas(of: [
            Self.delta("response.output_audio.delta", Data([9, 8]).base64EncodedString()),
            Self.delta("response.output_audio_transcript.delta", "Oslo"),
            Self.delta("response.output_audio.delta", Data([7]).base64EncodedString()),
            Self.delta("response.output_audio_transcript.delta", " is cold."),
            Self.done("completed"),
        ])
        var reply = LLMTranscript()
        _ = reply.apply(contentsOf: deltas)
        #expect(reply.text == "Oslo is cold.")
        #expect(reply.audio == [9, 8, 7])
        #expect(reply.finishReason == "completed" && reply.error == nil)
    }

    /// `incomplete` and `cancelled` finish with `status_details.reason`, after the usage.
    @Test(arguments: [
        ("incomplete", "max_output_tokens"), ("incomplete", "content_filter"),
        ("cancelled", "turn_detected"), ("cancelled", "client_cancelled"),
    ])
    func anUnfinishedResponseFinishesWithItsReasonAfterTheUsage(status: String, reason: String) async throws {
        let details = #"{"type":"\#(status)","reason":"\#(reason)"}"#
        let deltas = try await Self.deltas(of: [
            Self.delta("response.output_text.delta", "Partial"), Self.done(status, details: details, usage: Self.usage),
        ])
        #expect(deltas == [
            .text("Partial"), .usage(LLMUsage(inputTokens: 8, outputTokens: 4, totalTokens: 12, cachedInputTokens: 2)),
            .finish(LLMFinishReason(reason)),
        ])
    }

    /// An `incomplete` response without a reason finishes with its status.
    @Test func anIncompleteResponseWithoutAReasonFinishesWithItsStatus() async throws {
        let deltas = try await Self.deltas(of: [Self.delta("response.output_text.delta", "Part"), Self.done("incomplete")])
        #expect(deltas == [.text("Part"), .finish("incomplete")])
    }

    /// A `failed` response is a `stream_error` delta, its last, after the usage: the error's
    /// code (or, without one, its type) in the detail and its message as the body excerpt;
    /// the session's next reply still arrives.
    @Test(arguments: [
        (#""type":"server_error","code":"rate_limit_exceeded""#, "openai-realtime rate_limit_exceeded"),
        (#""type":"server_error""#, "openai-realtime server_error"),
    ])
    func aFailedResponseIsAnErrorAndTheSessionGoesOn(error fields: String, detail: String) async throws {
        let details = #"{"type":"failed","error":{\#(fields),"message":"Too many requests."}}"#
        let deltas = try await Self.deltas(of: [
            Self.delta("response.output_text.delta", "Par"), Self.done("failed", details: details, usage: Self.usage),
            Self.delta("response.output_text.delta", "Again"), Self.done("completed", id: "resp_2"),
        ])
        guard deltas.count == 5, case .error(let error) = deltas[2] else { Issue.record("\(deltas)"); return }
        #expect(Array(deltas.prefix(2)) == [
            .text("Par"), .usage(LLMUsage(inputTokens: 8, outputTokens: 4, totalTokens: 12, cachedInputTokens: 2)),
        ])
        #expect(error.code == .streamError)
        #expect(error.detail == detail)
        #expect(error.bodyExcerpt == "Too many requests.")
        #expect(Array(deltas.suffix(2)) == [.text("Again"), .finish("completed")])
    }

    /// A session carries many replies, one after another, each ended by its own `response.done`.
    @Test func severalRepliesOnOneSessionEachEndWithTheirFinish() async throws {
        var events: [String] = []
        for n in 1...3 {
            events.append(#"{"type":"response.created","event_id":"c\#(n)","response":{"id":"resp_\#(n)","status":"in_progress"}}"#)
            events.append(Self.delta("response.output_text.delta", "reply \(n)"))
            events.append(Self.done(n == 2 ? "incomplete" : "completed", details: #"{"reason":"max_output_tokens"}"#, id: "resp_\(n)"))
        }
        let deltas = try await Self.deltas(of: events, finishes: 3)
        #expect(deltas == [
            .text("reply 1"), .finish("completed"), .text("reply 2"), .finish("max_output_tokens"),
            .text("reply 3"), .finish("completed"),
        ])
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// The chat completions stream's own chunk shapes through `client.deltas(format: .openAI)`
/// on the embedded stack, as ``OpenAIChatDecoder`` and the LLM streaming guide promise.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMOpenAIChatTests {
    /// The calls a transcript completes from `deltas`.
    static func completedCalls(_ deltas: [LLMDelta]) -> [LLMToolCall] {
        var transcript = LLMTranscript()
        return deltas.flatMap { transcript.apply($0) }
    }

    static let weatherAndTime = [
        LLMToolCall(index: 0, id: "call_a", name: "weather", arguments: #"{"city":"Oslo"}"#, isComplete: true),
        LLMToolCall(index: 1, id: "call_b", name: "time", arguments: #"{"tz":"CET"}"#, isComplete: true),
    ]

    typealias Wire = EmbeddedLLMWire

    /// A `chat.completion.chunk` with one choice.
    static func chunk(_ delta: String, finish: String? = nil, index: Int = 0) -> Wire.Event {
        let reason = finish.map { #""\#($0)""# } ?? "null"
        return (nil, #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":\#(index),"delta":\#(delta),"logprobs":null,"finish_reason":\#(reason)}]}"#)
    }

    static func reply(_ events: [Wire.Event], decoder: OpenAIChatDecoder = .openAI) async throws -> (deltas: [LLMDelta], released: Bool) {
        try await Wire.reply(decoder, "openai", events + [(nil, "[DONE]")])
    }

    /// `reasoning_content` (or `reasoning`, which servers that send both fill with the same
    /// text) is reasoning of one block per run: a run after the answer's text starts block 1.
    @Test func reasoningFieldsAreReasoningBlocksApartFromTheText() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"role":"assistant","content":"","reasoning_content":"Hmm,"}"#),
            Self.chunk(#"{"reasoning_content":" TCP.","reasoning":" TCP."}"#),
            Self.chunk(#"{"content":"Acks."}"#),
            Self.chunk(#"{"reasoning":"Again."}"#),
            Self.chunk(#"{"content":""}"#, finish: "stop"),
        ])
        #expect(deltas == [
            Wire.reasoning(0, .text, "Hmm,"), Wire.reasoning(0, .text, " TCP."), .text("Acks."), Wire.reasoning(1, .text, "Again."), .finish(.stop),
        ])
        #expect(Wire.transcript(deltas).reasoning.map(\.text) == ["Hmm, TCP.", "Again."])
    }

    /// A `refusal` is refusal deltas, never text.
    @Test func aRefusalIsApartFromTheText() async throws {
        let (deltas, released) = try await Self.reply([
            Self.chunk(#"{"role":"assistant","content":null,"refusal":""}"#),
            Self.chunk(#"{"refusal":"I can't"}"#),
            Self.chunk(#"{"refusal":" help with that."}"#),
            Self.chunk(#"{}"#, finish: "stop"),
        ])
        #expect(deltas == [.refusal("I can't"), .refusal(" help with that."), .finish(.stop)])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.refusal == "I can't help with that." && transcript.text.isEmpty)
        #expect(released)
    }

    /// A `url_citation` annotation is a citation with the URL and title nested in it.
    @Test func aURLCitationAnnotationIsACitation() async throws {
        let annotation = #"{"type":"url_citation","url_citation":{"end_index":10,"start_index":0,"title":"TCP","url":"https://example.com/tcp"}}"#
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"content":"TCP is old."}"#),
            Self.chunk(#"{"annotations":[\#(annotation)]}"#),
            Self.chunk(#"{}"#, finish: "stop"),
        ])
        let citation = LLMCitation(type: "url_citation", url: "https://example.com/tcp", title: "TCP", json: annotation)
        #expect(deltas == [.text("TCP is old."), .citation(citation), .finish(.stop)])
    }

    /// With `stream_options.include_usage`, the last chunk (no choices) is the usage, with
    /// reasoning and cached tokens, after the finish; every chunk before carries `usage: null`.
    @Test func theFinalUsageChunkIsTheLastDelta() async throws {
        let usage = #"{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":4}}"#
        let (deltas, released) = try await Self.reply([
            (nil, #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}"#),
            (nil, #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":null}"#),
            (nil, #"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":\#(usage)}"#),
        ])
        let expected = LLMUsage(inputTokens: 20, outputTokens: 9, totalTokens: 29, reasoningTokens: 4, cachedInputTokens: 8)
        #expect(deltas == [.text("Hi"), .finish(.length), .usage(expected)])
        #expect(released)
    }

    /// With `n: 2`, the default decoder follows choice 0 and `OpenAIChatDecoder(choice: 1)`
    /// choice 1: the other's text and finish are skipped.
    @Test(arguments: [0, 1]) func eachChoiceIsReadByItsOwnDecoder(choice: Int) async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"content":"Zero"}"#, index: 0),
            Self.chunk(#"{"content":"One"}"#, index: 1),
            Self.chunk(#"{}"#, finish: "stop", index: 1),
            Self.chunk(#"{}"#, finish: "length", index: 0),
        ], decoder: OpenAIChatDecoder(choice: choice))
        #expect(deltas == (choice == 0 ? [.text("Zero"), .finish(.length)] : [.text("One"), .finish(.stop)]))
    }

    /// Two parallel calls' argument fragments interleave; each call gets its own, and the
    /// finish ends both, in index order, before it.
    @Test func parallelToolCallsInterleaveAndEndAtTheFinish() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}]}"#),
            Self.chunk(#"{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"time","arguments":""}}]}"#),
            Self.chunk(#"{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":"}}]}"#),
            Self.chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Oslo\"}"}}]}"#),
            Self.chunk(#"{"tool_calls":[{"index":1,"function":{"arguments":"\"CET\"}"}}]}"#),
            Self.chunk(#"{}"#, finish: "tool_calls"),
        ])
        #expect(deltas.suffix(3) == [.toolCallEnd(index: 0), .toolCallEnd(index: 1), .finish(.toolCalls)])
        #expect(Self.completedCalls(deltas) == Self.weatherAndTime)
    }

    /// The SSE `event:` type does not change how a chunk is read; data with neither
    /// `choices` nor `error` is `unrecognized` under its `object`, else its `event:` type.
    @Test func theSSEEventTypeOnlyNamesAnUnrecognizedEvent() async throws {
        let (deltas, _) = try await Self.reply([
            ("completion", Self.chunk(#"{"content":"Hi"}"#).data),
            ("ping", "{}"),
            ("ping", #"{"object":"keepalive"}"#),
            Self.chunk(#"{}"#, finish: "content_filter"),
        ])
        #expect(deltas == [.text("Hi"), .unrecognized("ping"), .unrecognized("keepalive"), .finish(.contentFilter)])
    }
    /// With `modalities: ["text", "audio"]` the reply comes as `delta.audio`: its
    /// `transcript` is the reply's text and its `data` the base64 audio, with the `id` the
    /// first fragment names; the last fragment, with only `id` and `expires_at`, adds nothing.
    @Test func anAudioReplyIsItsTranscriptAndItsAudio() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"role":"assistant","content":null,"refusal":null,"audio":{"id":"audio_1","transcript":"Hi"}}"#),
            Self.chunk(#"{"audio":{"data":"AAEC/w=="}}"#),
            Self.chunk(#"{"audio":{"transcript":" there."}}"#),
            Self.chunk(#"{"audio":{"id":"audio_1","expires_at":1729018505}}"#),
            Self.chunk(#"{}"#, finish: "stop"),
        ])
        #expect(deltas == [
            .text("Hi"), .audio(LLMAudioDelta(itemID: "audio_1", bytes: [0, 1, 2, 255])), .text(" there."), .finish(.stop),
        ])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.text == "Hi there." && transcript.audio == [0, 1, 2, 255])
    }
    /// A request with the deprecated `functions` streams `delta.function_call` (name, then
    /// argument fragments) and finishes with `function_call`: one tool call, index 0, no id.
    @Test func aLegacyFunctionCallIsToolCallZero() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"role":"assistant","content":null,"function_call":{"name":"weather","arguments":""}}"#),
            Self.chunk(#"{"function_call":{"arguments":"{\"city\":"}}"#),
            Self.chunk(#"{"function_call":{"arguments":"\"Oslo\"}"}}"#),
            Self.chunk(#"{}"#, finish: "function_call"),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        #expect(completed == [LLMToolCall(index: 0, id: "", name: "weather", arguments: #"{"city":"Oslo"}"#, isComplete: true)])
        #expect(transcript.finishReason == LLMFinishReason("function_call"))
    }
    /// Ollama numbers every call of a parallel batch `index: 0`, each with its own `id`: a
    /// new id at an index another call holds is the next call, and the fragments after it
    /// without an id are that call's, never one call with the arguments joined.
    @Test func parallelCallsSharingIndexZeroStayApartByID() async throws {
        let (deltas, _) = try await Self.reply([
            Self.chunk(#"{"role":"assistant","content":"","tool_calls":[{"id":"call_a","index":0,"type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]}"#),
            Self.chunk(#"{"tool_calls":[{"id":"call_b","index":0,"type":"function","function":{"name":"time","arguments":"{\"tz\":"}}]}"#),
            Self.chunk(#"{"tool_calls":[{"index":0,"function":{"arguments":"\"CET\"}"}}]}"#),
            Self.chunk(#"{}"#, finish: "tool_calls"),
        ])
        #expect(Self.completedCalls(deltas) == Self.weatherAndTime)
    }
}
#endif

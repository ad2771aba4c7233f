#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// The Responses API stream's own event shapes through
/// `client.deltas(format: .openAIResponses)` on the embedded stack, as
/// ``OpenAIResponsesDecoder`` and the LLM streaming guide promise.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMOpenAIResponsesTests {
    typealias Wire = EmbeddedLLMWire

    /// A Responses event: its SSE type is the data's `type`, its sequence number `sequence`.
    static func event(_ type: String, _ sequence: Int, _ fields: String = "") -> Wire.Event {
        (type, #"{"type":"\#(type)","sequence_number":\#(sequence)\#(fields.isEmpty ? "" : ",")\#(fields)}"#)
    }

    static func reply(_ events: [Wire.Event]) async throws -> (deltas: [LLMDelta], released: Bool) {
        try await Wire.reply(OpenAIResponsesDecoder.openAIResponses, "responses", events)
    }

    static let created = event("response.created", 0, #""response":{"id":"resp_1","status":"in_progress"}"#)

    static func completed(_ sequence: Int, usage: String = #"{"input_tokens":5,"output_tokens":7,"total_tokens":12}"#) -> Wire.Event {
        event("response.completed", sequence, #""response":{"id":"resp_1","status":"completed","usage":\#(usage)}"#)
    }

    /// Each reasoning summary part is a reasoning block of kind `summary`, a reasoning text
    /// part one of kind `text`; the answer stays apart, and `response.completed` brings the
    /// finish and the usage with reasoning and cached tokens.
    @Test func summaryPartsAndReasoningTextAreBlocksOfTheirOwn() async throws {
        let item = #""item_id":"rs_1","output_index":0"#
        let usage = #"{"input_tokens":30,"input_tokens_details":{"cached_tokens":10},"output_tokens":50,"output_tokens_details":{"reasoning_tokens":40},"total_tokens":80}"#
        let (deltas, released) = try await Self.reply([
            Self.created,
            Self.event("response.output_item.added", 1, #""output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}"#),
            Self.event("response.reasoning_summary_part.added", 2, item + #","summary_index":0,"part":{"type":"summary_text","text":""}"#),
            Self.event("response.reasoning_summary_text.delta", 3, item + #","summary_index":0,"delta":"**Sky**""#),
            Self.event("response.reasoning_summary_text.delta", 4, item + #","summary_index":0,"delta":" scatters.""#),
            Self.event("response.reasoning_summary_part.added", 5, item + #","summary_index":1,"part":{"type":"summary_text","text":""}"#),
            Self.event("response.reasoning_summary_text.delta", 6, item + #","summary_index":1,"delta":"Blue.""#),
            Self.event("response.reasoning_text.delta", 7, item + #","content_index":0,"delta":"raw""#),
            Self.event("response.output_text.delta", 8, #""item_id":"msg_1","output_index":1,"content_index":0,"delta":"Rayleigh.""#),
            Self.completed(9, usage: usage),
        ])
        #expect(deltas == [
            Wire.reasoning(0, .summary, "**Sky**"), Wire.reasoning(0, .summary, " scatters."), Wire.reasoning(1, .summary, "Blue."),
            Wire.reasoning(2, .text, "raw"), .text("Rayleigh."), .finish("completed"),
            .usage(LLMUsage(inputTokens: 30, outputTokens: 50, totalTokens: 80, reasoningTokens: 40, cachedInputTokens: 10)),
        ])
        #expect(Wire.transcript(deltas).reasoning.map(\.summary) == ["**Sky** scatters.", "Blue.", ""])
        #expect(released, "response.completed ends the reply on a held connection")
    }

    /// `response.refusal.delta` is a refusal, never text.
    @Test func aRefusalDeltaIsARefusal() async throws {
        let part = #""item_id":"msg_1","output_index":0,"content_index":0"#
        let (deltas, _) = try await Self.reply([
            Self.created,
            Self.event("response.refusal.delta", 1, part + #","delta":"No, ""#),
            Self.event("response.refusal.delta", 2, part + #","delta":"sorry.""#),
            Self.event("response.refusal.done", 3, part + #","refusal":"No, sorry.""#),
            Self.completed(4),
        ])
        #expect(deltas.prefix(2) == [.refusal("No, "), .refusal("sorry.")])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.refusal == "No, sorry." && transcript.text.isEmpty)
    }

    /// `response.output_text.annotation.added` is a citation with the annotation's URL and title.
    @Test func anAddedAnnotationIsACitation() async throws {
        let annotation = #"{"end_index":9,"start_index":0,"title":"Sky","type":"url_citation","url":"https://example.com/sky"}"#
        let (deltas, _) = try await Self.reply([
            Self.event("response.output_text.delta", 1, #""item_id":"msg_1","output_index":0,"content_index":0,"delta":"Sky blue.""#),
            Self.event("response.output_text.annotation.added", 2,
                       #""item_id":"msg_1","output_index":0,"content_index":0,"annotation_index":0,"annotation":\#(annotation)"#),
            Self.completed(3),
        ])
        let citation = LLMCitation(type: "url_citation", url: "https://example.com/sky", title: "Sky", json: annotation)
        #expect(deltas.prefix(2) == [.text("Sky blue."), .citation(citation)])
    }

    /// A function call's id and name come with its item, its arguments in
    /// `response.function_call_arguments.delta` fragments (a custom tool's input in
    /// `response.custom_tool_call_input.delta`), its end with `response.output_item.done`.
    @Test func toolCallArgumentsStreamByOutputItem() async throws {
        let (deltas, _) = try await Self.reply([
            Self.event("response.output_item.added", 1, #""output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"weather","arguments":""}"#),
            Self.event("response.output_item.added", 2, #""output_index":1,"item":{"id":"ct_1","type":"custom_tool_call","call_id":"call_2","name":"sql","input":""}"#),
            Self.event("response.function_call_arguments.delta", 3, #""item_id":"fc_1","output_index":0,"delta":"{\"city\":""#),
            Self.event("response.custom_tool_call_input.delta", 4, #""item_id":"ct_1","output_index":1,"delta":"SELECT 1""#),
            Self.event("response.function_call_arguments.delta", 5, #""item_id":"fc_1","output_index":0,"delta":"\"Oslo\"}""#),
            Self.event("response.function_call_arguments.done", 6, #""item_id":"fc_1","output_index":0,"arguments":"{\"city\":\"Oslo\"}""#),
            Self.event("response.output_item.done", 7, #""output_index":1,"item":{"id":"ct_1","type":"custom_tool_call","call_id":"call_2","name":"sql","input":"SELECT 1"}"#),
            Self.event("response.output_item.done", 8, #""output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Oslo\"}"}"#),
            Self.completed(9),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        #expect(completed == [
            LLMToolCall(index: 1, id: "call_2", name: "sql", arguments: "SELECT 1", isComplete: true),
            LLMToolCall(index: 0, id: "call_1", name: "weather", arguments: #"{"city":"Oslo"}"#, isComplete: true),
        ])
    }
}

/// How a Responses reply fails or skips what it does not decode, through the client on the
/// embedded stack.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMOpenAIResponsesEndTests {
    typealias Responses = EmbeddedLLMOpenAIResponsesTests

    /// `response.failed` ends the reply: the text before it, then `stream_error` naming the
    /// response's `error.code`, with its `error.message` as the body excerpt; the held
    /// connection is released.
    @Test func aFailedResponseEndsWithItsCodeAndMessage() async throws {
        let (deltas, released) = try await Responses.reply([
            Responses.created,
            Responses.event("response.output_text.delta", 1, #""item_id":"msg_1","output_index":0,"content_index":0,"delta":"Par""#),
            Responses.event("response.failed", 2,
                            #""response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."}}"#),
        ])
        #expect(deltas.first == .text("Par") && deltas.count == 2)
        guard case .error(let failure) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(failure.code == .streamError && failure.detail == "openai-responses server_error")
        #expect(failure.bodyExcerpt == "The model failed to generate a response.")
        #expect(released)
    }

    /// An `error` event ends the reply with `stream_error` naming its `code`, the event's
    /// data as the body excerpt.
    @Test func anErrorEventEndsWithItsCodeAndTheEvent() async throws {
        let error = Responses.event("error", 1, #""code":"rate_limit_exceeded","message":"Slow down.","param":null"#)
        let (deltas, released) = try await Responses.reply([Responses.created, error])
        guard case .error(let failure) = deltas.last, deltas.count == 1 else { Issue.record("expected one error: \(deltas)"); return }
        #expect(failure.code == .streamError && failure.detail == "openai-responses rate_limit_exceeded")
        #expect(failure.bodyExcerpt == error.data)
        #expect(released)
    }

    /// A web search's item and events are `unrecognized` under their type; the reply goes on
    /// and finishes.
    @Test func webSearchEventsAreSkipped() async throws {
        let (deltas, _) = try await Responses.reply([
            Responses.created,
            Responses.event("response.output_item.added", 1, #""output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}"#),
            Responses.event("response.web_search_call.in_progress", 2, #""output_index":0,"item_id":"ws_1""#),
            Responses.event("response.web_search_call.completed", 3, #""output_index":0,"item_id":"ws_1""#),
            Responses.event("response.output_item.done", 4, #""output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed"}"#),
            Responses.event("response.output_text.delta", 5, #""item_id":"msg_1","output_index":1,"content_index":0,"delta":"Found.""#),
            Responses.completed(6),
        ])
        #expect(deltas.prefix(4) == [
            .unrecognized("web_search_call"), .unrecognized("response.web_search_call.in_progress"),
            .unrecognized("response.web_search_call.completed"), .text("Found."),
        ])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.unrecognizedEvents == 3 && transcript.isFinished)
    }

    /// A server that sends no `event:` lines: each event is read by its data's `type`, and
    /// `response.completed` still ends the reply on a held connection.
    @Test func withoutEventLinesTheDataTypeDecidesAndEnds() async throws {
        let events = [
            Responses.event("response.output_text.delta", 1, #""item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi""#),
            Responses.completed(2),
        ].map { (type: String?.none, data: $0.data) }
        let (deltas, released) = try await Responses.reply(events)
        #expect(deltas == [.text("Hi"), .finish("completed"), .usage(LLMUsage(inputTokens: 5, outputTokens: 7, totalTokens: 12))])
        #expect(released)
    }

    typealias Wire = EmbeddedLLMWire
}
#endif

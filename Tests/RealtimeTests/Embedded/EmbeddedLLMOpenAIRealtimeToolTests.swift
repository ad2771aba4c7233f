#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// A function call reply of an OpenAI Realtime session through
/// `deltas(format: .openAIRealtime)` on the embedded stack, as ``OpenAIRealtimeDecoder``
/// promises.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMOpenAIRealtimeToolTests {
    /// Voice activity is `unrecognized`; a function call streams its arguments by item and
    /// ends with `response.output_item.done`; `response.done` brings the usage (cached
    /// tokens from `input_token_details`) and then the finish, the response's last delta.
    @Test func aFunctionCallResponseStreamsItsArgumentsThenUsageThenFinish() async throws {
        let t = try EmbeddedOpenAIRealtimeTests.client()
        defer { t.client.close() }
        let reading = EmbeddedOpenAIRealtimeDeltaTests.readingOneReply(t)
        let server = try await EmbeddedOpenAIRealtimeDeltaTests.configuredSession(t)
        let call = #""id":"item_1","type":"function_call","name":"weather","call_id":"call_1""#
        for event in [
            #"{"type":"input_audio_buffer.speech_started","event_id":"e0","audio_start_ms":100,"item_id":"item_0"}"#,
            #"{"type":"response.created","event_id":"e1","response":{"id":"resp_1","status":"in_progress"}}"#,
            #"{"type":"response.output_item.added","event_id":"e2","response_id":"resp_1","output_index":0,"item":{\#(call),"status":"in_progress","arguments":""}}"#,
            #"{"type":"response.function_call_arguments.delta","event_id":"e3","response_id":"resp_1","item_id":"item_1","output_index":0,"call_id":"call_1","delta":"{\"city\":"}"#,
            #"{"type":"response.function_call_arguments.delta","event_id":"e4","response_id":"resp_1","item_id":"item_1","output_index":0,"call_id":"call_1","delta":"\"Oslo\"}"}"#,
            #"{"type":"response.output_item.done","event_id":"e5","response_id":"resp_1","output_index":0,"item":{\#(call),"status":"completed","arguments":"{\"city\":\"Oslo\"}"}}"#,
            #"{"type":"response.done","event_id":"e6","response":{"id":"resp_1","status":"completed","usage":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"input_token_details":{"cached_tokens":5}}}}"#,
        ] { server.sendText(event) }
        let deltas = await t.pumping { await reading.value }
        #expect(deltas == [
            .unrecognized("input_audio_buffer.speech_started"),
            .toolCall(LLMToolCallDelta(index: 0, id: "call_1", name: "weather")),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #"{"city":"#)),
            .toolCall(LLMToolCallDelta(index: 0, argumentsFragment: #""Oslo"}"#)),
            .toolCallEnd(index: 0),
            .usage(LLMUsage(inputTokens: 20, outputTokens: 10, totalTokens: 30, cachedInputTokens: 5)),
            .finish("completed"),
        ])
        #expect(t.connectionCount == 1)
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeLLM
import RealtimeTesting
import Testing

/// The Anthropic Messages stream's own event shapes through `client.deltas(format: .anthropic)`
/// on the embedded stack, as ``AnthropicMessagesDecoder`` and the LLM streaming guide promise.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedLLMAnthropicTests {
    typealias Wire = EmbeddedLLMWire

    static func reply(_ events: [Wire.Event]) async throws -> (deltas: [LLMDelta], released: Bool) {
        try await Wire.reply(AnthropicMessagesDecoder.anthropic, "anthropic", events + [("message_stop", #"{"type":"message_stop"}"#)])
    }

    /// An Anthropic event: its SSE type is its data's `type`.
    static func event(_ data: String) -> Wire.Event {
        let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]
        return (object?["type"] as? String, data)
    }

    static let start = event(#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":12,"cache_read_input_tokens":3,"output_tokens":1}}}"#)
    static let endTurn = event(#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}"#)

    /// Extended thinking arrives as reasoning of block 0 (its text, then its signature),
    /// never as text; `message_start` brings the input and cached tokens, `message_delta`
    /// the finish and the output tokens.
    @Test func thinkingAndItsSignatureAreReasoningApartFromTheText() async throws {
        let (deltas, released) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" think."}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}"#),
            Self.event(#"{"type":"content_block_stop","index":0}"#),
            Self.event(#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#),
            Self.event(#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"42"}}"#),
            Self.event(#"{"type":"content_block_stop","index":1}"#),
            Self.endTurn,
        ])
        #expect(deltas == [
            .usage(LLMUsage(inputTokens: 12, outputTokens: 1, cachedInputTokens: 3)),
            Wire.reasoning(0, .text, "Let me"), Wire.reasoning(0, .text, " think."), Wire.reasoning(0, .signature, "EqQBCgIYAhIM"),
            .text("42"), .finish(.endTurn), .usage(LLMUsage(outputTokens: 15)),
        ])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.reasoning == [LLMReasoning(index: 0, text: "Let me think.", signature: "EqQBCgIYAhIM")])
        #expect(transcript.text == "42")
        #expect(transcript.usage == LLMUsage(inputTokens: 12, outputTokens: 15, cachedInputTokens: 3))
        #expect(released)
    }

    /// Reasoning and tool call indexes are ordinals of their blocks, not content-block
    /// indexes: a redacted block is reasoning 0, the thinking block after it reasoning 1,
    /// and the `tool_use` block after both tool call 0, its `input_json_delta` fragments
    /// in order and its `content_block_stop` its end.
    @Test func redactedThinkingAndToolUseAreNumberedByKind() async throws {
        let (deltas, _) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"}}"#),
            Self.event(#"{"type":"content_block_stop","index":0}"#),
            Self.event(#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}"#),
            Self.event(#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Weather."}}"#),
            Self.event(#"{"type":"content_block_stop","index":1}"#),
            Self.event(#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}"#),
            Self.event(#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#),
            Self.event(#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": "}}"#),
            Self.event(#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"Oslo\"}"}}"#),
            Self.event(#"{"type":"content_block_stop","index":2}"#),
            Self.event(#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}"#),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        #expect(transcript.reasoning == [LLMReasoning(index: 0, redactedData: "EmwKAhgBEgy3va"), LLMReasoning(index: 1, text: "Weather.")])
        #expect(completed == [LLMToolCall(index: 0, id: "toolu_01", name: "get_weather", arguments: #"{"city": "Oslo"}"#, isComplete: true)])
        #expect(deltas.firstIndex(of: .toolCallEnd(index: 0)) == deltas.firstIndex(of: .finish(.toolUse)).map { $0 - 1 })
        #expect(transcript.finishReason == .toolUse)
    }

    /// A `citations_delta` is a citation (its type, document title and cited text), apart
    /// from the text it annotates.
    @Test func aCitationsDeltaIsACitation() async throws {
        let citation = #"{"cited_text":"The grass is green.","document_index":0,"document_title":"Facts","end_char_index":20,"start_char_index":0,"type":"char_location"}"#
        let (deltas, _) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[]}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":\#(citation)}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Grass is green."}}"#),
            Self.event(#"{"type":"content_block_stop","index":0}"#),
            Self.endTurn,
        ])
        let expected = LLMCitation(type: "char_location", title: "Facts", citedText: "The grass is green.", json: citation)
        #expect(deltas.filter { if case .citation = $0 { true } else { false } } == [.citation(expected)])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.citations == [expected] && transcript.text == "Grass is green.")
    }

    /// A refusal is a `refusal` stop reason, kept as the wire says it: no refusal delta.
    @Test func aRefusalIsAStopReason() async throws {
        let (deltas, released) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},"usage":{"output_tokens":2}}"#),
        ])
        #expect(deltas == [.usage(LLMUsage(inputTokens: 12, outputTokens: 1, cachedInputTokens: 3)), .finish("refusal"), .usage(LLMUsage(outputTokens: 2))])
        #expect(Wire.transcript(deltas).refusal.isEmpty)
        #expect(released)
    }

    /// `ping` events, wherever they come, are no delta and do not end the reply.
    @Test func pingsAreNoDelta() async throws {
        let ping = Self.event(#"{"type":"ping"}"#)
        let (deltas, _) = try await Self.reply([
            ping, Self.start, ping,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}"#),
            ping, Self.event(#"{"type":"content_block_stop","index":0}"#), ping, Self.endTurn, ping,
        ])
        #expect(deltas == [.usage(LLMUsage(inputTokens: 12, outputTokens: 1, cachedInputTokens: 3)), .text("Hi"), .finish(.endTurn), .usage(LLMUsage(outputTokens: 15))])
    }

    /// A server tool's block (`server_tool_use`, `web_search_tool_result`) is one
    /// `unrecognized` delta with the block's type, its deltas and stop are skipped, and the
    /// text after it arrives.
    @Test func aServerToolBlockIsSkippedWithItsDeltas() async throws {
        let (deltas, _) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"tcp\"}"}}"#),
            Self.event(#"{"type":"content_block_stop","index":0}"#),
            Self.event(#"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}"#),
            Self.event(#"{"type":"content_block_stop","index":1}"#),
            Self.event(#"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"Found it."}}"#),
            Self.event(#"{"type":"content_block_stop","index":2}"#),
            Self.endTurn,
        ])
        #expect(deltas.dropFirst().dropLast(2) == [.unrecognized("server_tool_use"), .unrecognized("web_search_tool_result"), .text("Found it.")])
        #expect(Wire.transcript(deltas).toolCalls.isEmpty)
    }

    /// An event type newer than this version is skipped whole, even with fields a known
    /// event would reject, and its name comes from the data's `type`.
    @Test func aNewEventTypeIsSkippedWhateverItsFields() async throws {
        let (deltas, released) = try await Self.reply([
            Self.start,
            ("content_block_delta", #"{"type":"message_annotation","index":"first","delta":7}"#),
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}"#),
            Self.endTurn,
        ])
        #expect(deltas.dropFirst().prefix(2) == [.unrecognized("message_annotation"), .text("Hi")])
        #expect(Wire.transcript(deltas).isFinished && released)
    }

    /// An event whose data has no `type` is read as its SSE `event:` type says.
    @Test func anEventWithoutATypeInItsDataIsReadByItsSSEType() async throws {
        let (deltas, _) = try await Self.reply([
            ("content_block_start", #"{"index":0,"content_block":{"type":"text","text":""}}"#),
            ("content_block_delta", #"{"index":0,"delta":{"type":"text_delta","text":"Hi"}}"#),
            ("message_delta", #"{"delta":{"stop_reason":"end_turn"}}"#),
        ])
        #expect(deltas == [.text("Hi"), .finish(.endTurn)])
    }

    /// An `event: error` after text ends the reply: the text, then `stream_error` naming
    /// the error's type with the event's data as the body excerpt; the held connection is
    /// released.
    @Test func anErrorEventEndsTheReplyWithTheEventAsItsBody() async throws {
        let error = #"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#
        let (deltas, released) = try await Wire.reply(AnthropicMessagesDecoder.anthropic, "anthropic", [
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Par"}}"#),
            ("error", error),
        ])
        #expect(deltas.first == .text("Par") && deltas.count == 2)
        guard case .error(let failure) = deltas.last else { Issue.record("no error: \(deltas)"); return }
        #expect(failure.code == .streamError && failure.detail == "anthropic api_error")
        #expect(failure.bodyExcerpt == error)
        #expect(released)
    }
    /// A tool without parameters: its `tool_use` block starts with `"input": {}` and its one
    /// `input_json_delta` is empty, so the call's arguments are the block's `{}`, valid
    /// JSON as every other format's, not an empty string.
    @Test func aToolCallWithoutInputHasEmptyObjectArguments() async throws {
        let (deltas, _) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01","name":"now","input":{}}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}"#),
            Self.event(#"{"type":"content_block_stop","index":0}"#),
            Self.event(#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_02","name":"now","input":{}}}"#),
            Self.event(#"{"type":"content_block_stop","index":1}"#),
            Self.event(#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}"#),
        ])
        var transcript = LLMTranscript()
        var completed: [LLMToolCall] = []
        for delta in deltas { completed += transcript.apply(delta) }
        #expect(completed == [
            LLMToolCall(index: 0, id: "toolu_01", name: "now", arguments: "{}", isComplete: true),
            LLMToolCall(index: 1, id: "toolu_02", name: "now", arguments: "{}", isComplete: true),
        ])
    }
    /// `message_delta`'s usage is cumulative and, from newer servers, repeats the input and
    /// cache counts of `message_start` (with `server_tool_use`): the counts are replaced,
    /// never added.
    @Test func messageDeltaUsageReplacesTheStartCounts() async throws {
        let (deltas, _) = try await Self.reply([
            Self.start,
            Self.event(#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            Self.event(#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#),
            Self.event(#"{"type":"content_block_stop","index":0}"#),
            Self.event(#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":3,"output_tokens":15,"server_tool_use":{"web_search_requests":1}}}"#),
        ])
        let transcript = Wire.transcript(deltas)
        #expect(transcript.usage == LLMUsage(inputTokens: 12, outputTokens: 15, cachedInputTokens: 3))
        #expect(transcript.text == "Hi" && transcript.finishReason == .endTurn)
    }
}
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore

/// Decodes the OpenAI chat completions stream (`stream: true`): every event's data is a
/// `chat.completion.chunk` object, and `data: [DONE]` ends the reply.
///
/// - `choices[].delta.content` → ``LLMDelta/text(_:)`` (empty strings are skipped);
/// - `choices[].delta.reasoning_content` (DeepSeek, vLLM) or, without it,
///   `choices[].delta.reasoning` (OpenRouter, Ollama, vLLM) → ``LLMDelta/reasoning(_:)`` of
///   kind `text`; a run of reasoning is one block, and reasoning after text or a tool call
///   starts the next block;
/// - `choices[].delta.refusal` → ``LLMDelta/refusal(_:)``;
/// - `choices[].delta.audio` (a reply with `modalities: ["text", "audio"]`): its `transcript`
///   → ``LLMDelta/text(_:)``, its base64 `data` → ``LLMDelta/audio(_:)`` with the audio's `id`;
/// - `choices[].delta.annotations[]` (`url_citation`) → ``LLMDelta/citation(_:)``;
/// - `choices[].delta.tool_calls[]` → ``LLMDelta/toolCall(_:)`` with `index`, `id`,
///   `function.name` and the `function.arguments` fragment. A server that omits `index`
///   gets one from the call's `id` (a new id is the next call), else the last call's; a new
///   id with a function name at an index another id holds (Ollama sends `index: 0` for every
///   parallel call) is the next call too, and later fragments at that index are its, while a
///   new id without a name continues the call at its index;
/// - `choices[].delta.function_call` (the deprecated `functions` request) → the same, as
///   call 0 without an id;
/// - `choices[].finish_reason` → ``LLMDelta/toolCallEnd(index:)`` for every call still open,
///   then ``LLMDelta/finish(_:)``;
/// - `usage` (the last chunk with `stream_options.include_usage`, `choices` empty) →
///   ``LLMDelta/usage(_:)``, with `completion_tokens_details.reasoning_tokens` and
///   `prompt_tokens_details.cached_tokens` when sent;
/// - `{"error": {...}}` → ``LLMDelta/error(_:)`` with code `stream_error`, the error's
///   `type` (or `code`) in the detail and the event's data as the body excerpt;
/// - `[DONE]` → nothing: it is the `terminator`, where the client ends the reply without
///   delivering it.
///
/// - an object with neither `choices` nor `error` (`{"object":"keepalive"}`, which proxies
///   and local servers add) → ``LLMDelta/unrecognized(_:)`` with its `object` (or its SSE
///   `event:` type): skipped, the reply goes on.
///
/// Only the choice numbered `choice` is followed (the one reply a request without `n`
/// produces); chunks of other choices are skipped. `role`, `logprobs` and OpenRouter's
/// `reasoning_details` are not decoded. A data that is not a JSON object, or a known field of
/// the wrong type, throws `protocol_violation` (the reasoning fields, whose type differs
/// between servers, are skipped when they are not strings).
///
/// Each chunk costs time in proportion to its own size: open tool calls are a set and call
/// ids a dictionary, so a reply with a million tool calls decodes in linear time.
public struct OpenAIChatDecoder: LLMStreamDecoder {
    /// The `choices[].index` this decoder follows. Default 0.
    package var choice: Int
    /// Tool calls that have fragments and no end yet (ended in index order at the finish).
    private var openCalls: Set<Int> = []
    /// Index given to each call id seen, for servers that omit `index`.
    private var indexByID: [String: Int] = [:]
    /// Indexes that a call id holds.
    private var indexesWithID: Set<Int> = []
    /// The index a wire `index` stands for once a new id reused it (Ollama's parallel calls).
    private var indexByWireIndex: [Int: Int] = [:]
    /// The highest index given so far: the next new call gets the one after it.
    private var highestIndex: Int?
    private var lastIndex: Int?
    private var finished = false
    /// The reasoning block that reasoning fragments go to now; nil once other output came.
    private var reasoningBlock: Int?
    private var reasoningBlocks = 0
    /// The `id` of the reply's audio, which only some of its fragments repeat.
    private var audioID: String?

    /// `data: [DONE]`.
    public static var terminator: StreamTerminator? { .data("[DONE]") }

    /// A decoder of the choice with this index (other choices are skipped).
    public init(choice: Int = 0) {
        self.choice = choice
    }

    public mutating func decode(_ message: Message, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        if message.text == "[DONE]" { return }
        let chunk = try LLMWireJSON.decode(Chunk.self, from: message, format: "openai")
        if let error = chunk.error {
            deltas.append(.error(LLMWireJSON.streamError(format: "openai", type: error.type ?? error.code, message: message)))
            return
        }
        guard let choices = chunk.choices else {
            deltas.append(.unrecognized(LLMWireJSON.unrecognizedName(chunk.object?.value, message)))
            return
        }
        for c in choices where (c.index ?? 0) == choice {
            if let delta = c.delta { try decode(delta, into: &deltas) }
            if let reason = c.finishReason, !finished {
                finished = true
                deltas += openCalls.sorted().map { .toolCallEnd(index: $0) }
                openCalls.removeAll()
                deltas.append(.finish(LLMFinishReason(reason)))
            }
        }
        if let usage = chunk.usage {
            deltas.append(.usage(usage.counts))
        }
    }

    private mutating func decode(_ delta: Chunk.Delta, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        // Servers that send both fields send the same text in each.
        if let reasoning = [delta.reasoningContent?.value, delta.reasoning?.value].lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) {
            let block = reasoningBlock ?? reasoningBlocks
            if reasoningBlock == nil {
                reasoningBlock = block
                reasoningBlocks += 1
            }
            deltas.append(.reasoning(LLMReasoningDelta(index: block, kind: .text, fragment: reasoning)))
        }
        if let content = delta.content, !content.isEmpty {
            reasoningBlock = nil
            deltas.append(.text(content))
        }
        if let refusal = delta.refusal, !refusal.isEmpty {
            reasoningBlock = nil
            deltas.append(.refusal(refusal))
        }
        if let audio = delta.audio { try decode(audio, into: &deltas) }
        if case .array(let annotations)? = delta.annotations {
            deltas += annotations.compactMap { LLMCitation(wire: $0).map(LLMDelta.citation) }
        }
        var calls = delta.toolCalls ?? []
        if let function = delta.functionCall { calls.append(Chunk.ToolCall(index: 0, function: function)) }
        if !calls.isEmpty { reasoningBlock = nil }
        for call in calls {
            let index = resolveIndex(call)
            openCalls.insert(index)
            deltas.append(.toolCall(LLMToolCallDelta(
                index: index, id: call.id, name: call.function?.name, argumentsFragment: call.function?.arguments ?? "")))
        }
    }

    /// An audio reply's fragment: its transcript is the reply's text, its data the audio.
    private mutating func decode(_ audio: Chunk.Audio, into deltas: inout [LLMDelta]) throws(RealtimeError) {
        if audioID == nil, let id = audio.id, !id.isEmpty { audioID = id }
        if let transcript = audio.transcript, !transcript.isEmpty {
            reasoningBlock = nil
            deltas.append(.text(transcript))
        }
        guard let data = audio.data, !data.isEmpty else { return }
        guard let bytes = Data(base64Encoded: data) else {
            throw RealtimeError(.protocolViolation, detail: "openai: delta.audio whose 'data' is not base64")
        }
        reasoningBlock = nil
        deltas.append(.audio(LLMAudioDelta(itemID: audioID, bytes: [UInt8](bytes))))
    }

    private mutating func resolveIndex(_ call: Chunk.ToolCall) -> Int {
        let id = call.id.flatMap { $0.isEmpty ? nil : $0 }
        let index: Int
        if let id, let known = indexByID[id] {
            index = known
        } else if let given = call.index {
            let slot = indexByWireIndex[given] ?? given
            // A new id that names a function where another call's id is: the next call
            // (Ollama numbers every call of a parallel batch 0), and the wire index now means
            // that call. A new id without a name is the same call's (some servers send a new
            // id with every fragment).
            if id != nil, call.function?.name?.isEmpty == false, indexesWithID.contains(slot) {
                index = (highestIndex ?? -1) + 1
                indexByWireIndex[given] = index
            } else {
                index = slot
            }
        } else if id != nil {
            index = (highestIndex ?? -1) + 1
        } else {
            index = lastIndex ?? 0
        }
        if let id, indexByID[id] == nil {
            indexByID[id] = index
            indexesWithID.insert(index)
        }
        highestIndex = max(highestIndex ?? index, index)
        lastIndex = index
        return index
    }
}

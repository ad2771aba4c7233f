import Foundation
import RealtimeCore

/// The fake LLM endpoints' parameters (`/llm/openai`, `/llm/anthropic`, `/llm/responses`
/// and `/v1/responses`, `/llm/gemini`), parsed from the query, and the reply they describe. Public so tests can build their expectations from
/// the same canned text the server streams. Every parameter is documented in
/// ``TestServer/endpointReference``.
package struct LLMReplyOptions: Sendable, Hashable {
    /// The wire format, chosen by the path.
    package enum Format: String, Sendable, Hashable {
        /// OpenAI Chat Completions chunks.
        case openAI = "openai"
        /// Anthropic Messages events.
        case anthropic
        /// The OpenAI Responses API.
        case responses
        /// Gemini `streamGenerateContent?alt=sse`.
        case gemini
    }

    /// What the stream carries.
    package enum Reply: String, Sendable, Hashable {
        /// Text deltas, a finish and usage.
        case text
        /// A short text, then two tool calls with their arguments in fragments.
        case tools
        /// A few text deltas, then the format's in-stream error object (and the end of the body).
        case error
    }

    /// What happens after the reply.
    package enum End: String, Sendable, Hashable {
        /// The terminator (`data: [DONE]`, `event: message_stop`, `response.completed`, Gemini's
        /// chunk with the finish), then the end of the body.
        case done
        /// The terminator, then the connection stays open (nothing more is sent).
        case hold
        /// No finish and no terminator: the body just ends (a truncated reply).
        case truncate
    }

    /// The text pieces a `reply=text` stream sends, one delta each, in order: multi-byte
    /// code points (2, 3 and 4 bytes) and characters that need JSON escapes.
    package static let pieces = ["Hé", "llo", ", wör", "ld", "! ", "日本", "語 ", "🌍", " \"ok\"", "\n"]

    /// The wire format of the reply.
    package var format: Format
    /// `reply`: text, tools or error (text).
    package var reply = Reply.text
    /// `end`: done, hold or truncate (done).
    package var end = End.done
    /// `count`: text deltas, cycling through ``pieces`` (as many as there are pieces).
    package var count = LLMReplyOptions.pieces.count
    /// `interval_ms`: pause before each event after the first, ms (0).
    package var intervalMilliseconds = 0
    /// `split=1`: write every event in 3-byte writes (chunks), so code points and JSON are
    /// cut across reads.
    package var split = false
    /// `echo=1`: the text is `You said: ` and the last user message of the request body.
    package var echo = false
    /// `status`: answer this status with the format's JSON error body instead of a stream.
    package var status: Int?
    /// `retry_after`: with `status`, a `Retry-After` header.
    package var retryAfter: String?
    /// `unknown=1`: after the first text delta, an event the format does not define
    /// (OpenAI `{"object":"keepalive"}`; an Anthropic event type `content_block_summary`
    /// whose fields have other shapes than the known events'), which a client skips.
    package var unknownEvent = false
    /// `invalid_utf8=1`: the second text piece (`llo`) is sent as `l`, the byte 0xFF, `o`.
    package var invalidUTF8 = false
    /// `reasoning=1`: before the text, the model's reasoning in the format's shape
    /// (``reasoningPieces``): OpenAI-compatible `reasoning_content`, an Anthropic `thinking`
    /// block with its signature (``reasoningSignature``), a Responses reasoning item with a
    /// summary, Gemini thought parts.
    var reasoning = false
    /// `queued=1` (Responses): the reply stays queued: `response.created` with status
    /// `queued` and `response.queued`, then nothing more while the connection lasts (on a
    /// replay with `queued_replay=end`, the stream ends cleanly instead: a server that closes
    /// a resumed stream while the reply is still queued).
    var queued = false
    /// `queued_replay=end`: see ``queued``.
    var queuedReplayEnds = false
    /// `cut_after=N[,M…]` (Responses): the connection drops mid-body after the event with
    /// `sequence_number` N, a cut stream to resume with
    /// `GET /v1/responses/{id}?stream=true&starting_after=N`; with several, each request is
    /// cut at the first point after where it started (`-1`: the first request, before any
    /// event), so a reply can be cut again and again. Stateless: the id carries the points.
    var cutAfter: [Int] = []
    /// `starting_after=N` (Responses, the `GET` that resumes): only the events with a
    /// `sequence_number` above N.
    var startingAfter: Int?
    /// The query the reply was made from, without the parameters of one request
    /// (`starting_after`, `stream`): a Responses reply's id encodes it, so a `GET` of that id
    /// replays the same reply.
    var replyQuery: [String: String] = [:]
    /// `endless=1`: after the reply's text, text deltas of ``endlessPieceBytes`` bytes
    /// without end (bounded at ``endlessLimit`` bytes), until the client goes away.
    package var endless = false
    /// `piece_bytes`: the size of each `endless=1` delta, bytes (65536).
    package var endlessPieceBytes = 1 << 16
    /// The most an `endless=1` stream sends before it gives up and ends (truncated): four
    /// times a transcript's default limit.
    package static let endlessLimit = 256 << 20

    /// Options for `format` from the endpoint's query parameters.
    package init(format: Format, query: [String: String] = [:]) {
        self.format = format
        if let v = query["reply"].flatMap(Reply.init(rawValue:)) { reply = v }
        if let v = query["end"].flatMap(End.init(rawValue:)) { end = v }
        if let v = query["count"].flatMap(Int.init), v >= 0 { count = v }
        if let v = query["interval_ms"].flatMap(Int.init), v >= 0 { intervalMilliseconds = v }
        split = query["split"] == "1"
        echo = query["echo"] == "1"
        status = query["status"].flatMap(Int.init)
        retryAfter = query["retry_after"]
        unknownEvent = query["unknown"] == "1"
        invalidUTF8 = query["invalid_utf8"] == "1"
        endless = query["endless"] == "1"
        if let v = query["piece_bytes"].flatMap(Int.init), (1...(16 << 20)).contains(v) { endlessPieceBytes = v }
        reasoning = query["reasoning"] == "1"
        queued = query["queued"] == "1"
        cutAfter = query["cut_after"].map { $0.split(separator: ",").compactMap { Int($0) }.sorted() } ?? []
        queuedReplayEnds = query["queued_replay"] == "end"
        startingAfter = query["starting_after"].flatMap(Int.init)
        replyQuery = query.filter { $0.key != "starting_after" && $0.key != "stream" }
    }

    /// The reasoning a `reasoning=1` reply sends before its text, one fragment each.
    package static let reasoningPieces = ["Thinking about ", "the réply…"]

    /// The signature of a `reasoning=1` Anthropic thinking block (and of a Gemini part).
    package static let reasoningSignature = "EqQBsigTest=="

    /// The id of a Responses reply: `resp_` and the hex of its ``replyQuery`` (keys sorted),
    /// so `GET /v1/responses/{id}` can replay the reply without the server keeping state.
    package var responseID: String {
        let query = replyQuery.keys.sorted().map { "\($0)=\(replyQuery[$0]!)" }.joined(separator: "&")
        return "resp_" + query.utf8.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The reply query a ``responseID`` encodes; nil for an id that is not one.
    static func replyQuery(responseID id: String) -> [String: String]? {
        guard id.hasPrefix("resp_"), id.utf8.count % 2 == 1 else { return nil }
        var bytes: [UInt8] = []
        var hex = Substring(id.dropFirst(5))
        while !hex.isEmpty {
            guard let byte = UInt8(hex.prefix(2), radix: 16) else { return nil }
            bytes.append(byte)
            hex = hex.dropFirst(2)
        }
        var query: [String: String] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return query
    }

    /// The text deltas of the reply to `requestBody`.
    package func textPieces(requestBody: [UInt8] = []) -> [String] {
        if echo {
            let prompt = Self.lastUserMessage(requestBody) ?? "(nothing)"
            return ["You said: "] + prompt.split(separator: " ", omittingEmptySubsequences: false).enumerated().map {
                ($0.offset == 0 ? "" : " ") + $0.element
            }
        }
        let n = reply == .error ? min(count, 3) : count
        return (0..<n).map { Self.pieces[$0 % Self.pieces.count] }
    }

    /// One `endless=1` delta: ``endlessPieceBytes`` ASCII letters.
    package var endlessPiece: String {
        String(repeating: "abcdefghijklmnop", count: endlessPieceBytes / 16 + 1).prefix(endlessPieceBytes).description
    }

    /// The whole text of the reply (``textPieces(requestBody:)`` joined).
    package func text(requestBody: [UInt8] = []) -> String {
        textPieces(requestBody: requestBody).joined()
    }

    /// The JSON body of an error answer (`status=`), in the format's shape.
    package func errorBody(status: Int) -> String {
        switch (format, status) {
        case (.openAI, 429):
            return #"{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#
        case (.openAI, _):
            return #"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#
        case (.anthropic, 429):
            return #"{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit."}}"#
        case (.anthropic, 529):
            return #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
        case (.anthropic, _):
            return #"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#
        case (.responses, _):
            return Self(format: .openAI).errorBody(status: status)
        case (.gemini, 429):
            return #"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#
        case (.gemini, 503):
            return #"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#
        case (.gemini, _):
            return #"{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}"#
        }
    }

    /// The tool calls of `reply=tools`: name and complete arguments JSON, streamed in pieces.
    package static let toolCalls: [(id: String, name: String, arguments: [String])] = [
        ("call_weather", "get_weather", [#"{"city""#, #": "Zü"#, #"rich"}"#]),
        ("call_time", "get_time", [#"{"tz": "#, #""CET"}"#]),
    ]

    /// The text a `reply=tools` stream sends before its calls.
    package static let toolPreamble = "Let me check."

    /// `messages[-1].content` of an OpenAI or Anthropic request, `input` (a string or the
    /// last input item's content) of a Responses request, `contents[-1].parts` of a Gemini
    /// request: a string, or the text of its content blocks or parts.
    static func lastUserMessage(_ body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        if let input = object["input"] as? String { return input }
        if let contents = object["contents"] as? [[String: Any]], let parts = contents.last?["parts"] as? [[String: Any]] {
            return parts.compactMap { $0["text"] as? String }.joined()
        }
        guard let messages = (object["messages"] ?? object["input"]) as? [[String: Any]], let last = messages.last
        else { return nil }
        if let text = last["content"] as? String { return text }
        if let blocks = last["content"] as? [[String: Any]] {
            return blocks.compactMap { $0["text"] as? String }.joined()
        }
        return nil
    }

    /// `text` as a JSON string literal (quotes included), RFC 8259 escapes.
    static func json(_ text: String) -> String { JSONString.quoted(text) }
}

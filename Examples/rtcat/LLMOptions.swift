import Foundation
import Realtime
import RealtimeLLM

/// The command line of `rtcat llm`, parsed and checked, and turned into a finite LLM
/// ``RealtimeClient/Configuration``.
struct LLMOptions {
    /// The wire format of the reply.
    enum Format: String {
        case openAI = "openai"
        case anthropic
        case responses
        case gemini
    }

    var url: URL
    var format = Format.openAI
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    /// Deliver coalesced batches at most once per this interval; nil: every delta.
    var coalesce: Duration?
    var connectTimeout: Duration?
    var responseTimeout: Duration?
    /// 0 disables the idle timeout.
    var idleTimeout: Duration?
    /// Attempts after a failure before the request reached the server (a refused or failed
    /// connection); the request itself is never sent twice.
    var maxRetries = 2
    /// The most text and tool-argument bytes of the reply; beyond: `message_too_large`.
    var maxReplyBytes = LLMTranscript().maxBytes
    /// Invalid UTF-8 in the reply becomes U+FFFD instead of an `invalid_utf8` error.
    var lenientUTF8 = false
    /// Responses: `"background": true` in the body, and a cut reply resumed with
    /// `GET …/responses/{id}?stream=true&starting_after=N`.
    var background = false

    static let help = """
            options (durations in seconds):
              --format openai|anthropic|responses|gemini  the reply's wire format (openai): OpenAI chat
                                    completions, Anthropic Messages, the OpenAI Responses API, Gemini alt=sse
              -H 'Name: value'      request header (repeatable), e.g. Authorization: Bearer …
              -d BODY | -d @FILE    the JSON request body (required; sent with POST, once)
              --coalesce S          print text in batches at most once per S seconds (e.g. 0.033)
              --connect-timeout S   DNS + TCP + TLS (10)
              --response-timeout S  the reply may start S seconds after the request (600)
              --idle-timeout S      no byte for S seconds = dead connection (300; 0 = off)
              --max-retries N       connection attempts after one that failed before the request
                                    was sent (2); a request that reached the server is never re-sent
              --max-reply-bytes N   the reply's text and tool arguments may hold N bytes (67108864);
                                    beyond, rtcat closes the connection: error message_too_large
              --lenient-utf8        invalid UTF-8 in the reply becomes U+FFFD (default: the reply
                                    fails with invalid_utf8)
              --background          (responses) run the reply in background mode ("background": true
                                    is added to the body) and resume a cut reply with GET
                                    …/responses/{id}?stream=true&starting_after=N: every delta once, the
                                    POST never repeated
            output: one JSON object per line:
              {"kind": "delta", "text": …}   each text delta (each batch's text with --coalesce)
              {"kind": "reasoning", "block": …, "type": "text|summary|signature|redacted", "text": …}
                                    each reasoning fragment (the model's thinking, apart from the answer)
              {"kind": "refusal", "text": …}   each refusal fragment
              {"kind": "citation", "type": …, "url": …, "title": …, "citedText": …}   each cited source
              {"kind": "tool_call", "index": …, "id": …, "name": …, "arguments": …}   once complete
              {"kind": "unrecognized", "event": …}   an event the format does not define, skipped
                                    (e.g. {"object":"keepalive"}); the reply goes on
              {"kind": "finished", "reason": …, "text": …, "reasoning": …, "refusal": …, "usage": {…}}
                                    (reasoning: the reasoning and summary text, when there was any;
                                    refusal when there was one)
              {"kind": "error", "code": …, "message": …, "status": …, "body": …, "retryAfter": …, "cause": …}
            exit: 0 after finished (also when the server holds the connection open after the
            reply's terminator); 1 after an error (truncated, http_status, stream_error, …); 2 usage error
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> LLMOptions {
        var url: URL?
        var body: [UInt8]?
        var o = LLMOptions(url: URL(string: "http://localhost")!)
        var cursor = ArgumentCursor(arguments)
        while cursor.advance() {
            switch cursor.option {
            case "--format":
                let name = try cursor.value()
                guard let format = Format(rawValue: name) else {
                    throw UsageError("--format is openai, anthropic, responses or gemini, not '\(name)'")
                }
                o.format = format
            case "-H", "--header":
                let (name, value) = try ConnectOptions.headerField(try cursor.value())
                o.headers.add(name: name, value: value)
            case "-d", "--data": body = try readBody(try cursor.value())
            case "--coalesce": o.coalesce = try cursor.seconds(allowZero: false)
            case "--connect-timeout": o.connectTimeout = try cursor.seconds(allowZero: false)
            case "--response-timeout": o.responseTimeout = try cursor.seconds(allowZero: false)
            case "--idle-timeout": o.idleTimeout = try cursor.seconds(allowZero: true)
            case "--max-retries": o.maxRetries = try cursor.integer(minimum: 0)
            case "--max-reply-bytes": o.maxReplyBytes = try cursor.integer(minimum: 1)
            case "--lenient-utf8": o.lenientUTF8 = true
            case "--background": o.background = true
            default:
                let arg = cursor.option
                if arg.hasPrefix("-") && arg.count > 1 { throw UsageError("unknown option '\(arg)'") }
                guard url == nil else { throw UsageError("more than one URL ('\(arg)')") }
                guard let parsed = URL(string: arg), parsed.host != nil,
                    RealtimeClient.transportKind(for: parsed) == .sse
                else { throw UsageError("'\(arg)' is not an http:// or https:// URL") }
                url = parsed
            }
        }
        guard let url else { throw UsageError("no URL given") }
        guard let body else { throw UsageError("-d BODY is required (the JSON request)") }
        o.url = url
        o.body = body
        if o.background {
            guard o.format == .responses else { throw UsageError("--background needs --format responses") }
            o.body = try backgroundBody(body)
        }
        return o
    }

    /// The body with `"background": true` (and `"stream": true`) set: a JSON object is required.
    private static func backgroundBody(_ body: [UInt8]) throws(UsageError) -> [UInt8] {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw UsageError("--background: the body must be a JSON object")
        }
        object["background"] = true
        object["stream"] = true
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw UsageError("--background: the body could not be encoded")
        }
        return Array(data)
    }

    private static func readBody(_ text: String) throws(UsageError) -> [UInt8] {
        guard text.hasPrefix("@") else { return Array(text.utf8) }
        let path = String(text.dropFirst())
        guard let contents = FileManager.default.contents(atPath: path) else { throw UsageError("-d: cannot read '\(path)'") }
        return Array(contents)
    }

    /// POST `body` as JSON, never repeated, no reconnect after the reply, invalid UTF-8 an
    /// error unless `--lenient-utf8`. The reply ends at the format's terminator
    /// (`data: [DONE]`, `event: message_stop`, the Responses end events and Gemini's chunk
    /// with the finish, both delivered).
    var configuration: RealtimeClient.Configuration {
        let terminator: StreamTerminator?
        switch format {
        case .openAI: terminator = OpenAIChatDecoder.terminator
        case .anthropic: terminator = AnthropicMessagesDecoder.terminator
        case .responses: terminator = OpenAIResponsesDecoder.terminator
        case .gemini: terminator = GeminiDecoder.terminator
        }
        var c = RealtimeClient.Configuration.llm(body: body, headers: headers, terminator: terminator)
        if let connectTimeout { c.connectTimeout = connectTimeout }
        if let responseTimeout { c.responseTimeout = responseTimeout }
        if let idleTimeout { c.idleTimeout = idleTimeout == .zero ? nil : idleTimeout }
        c.reconnect.maxAttempts = maxRetries + 1
        if lenientUTF8 { c.sse.strictUTF8 = false }
        if background { c.resume = .openAIResponses }
        return c
    }
}

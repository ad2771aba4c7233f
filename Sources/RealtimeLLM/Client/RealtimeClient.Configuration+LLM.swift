#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RealtimeClient.Configuration {
    /// A typical LLM request: POST with a JSON body, sent once (not repeated after a cut;
    /// an error status is reported with its body and `Retry-After`), no reconnect after
    /// the reply ends, and the reply's end marked by `terminator` (OpenAI's
    /// `data: [DONE]` by default; `.eventType("message_stop")` for Anthropic; nil when
    /// the server marks none: a clean end is then the end of the reply). Invalid UTF-8 in
    /// the reply fails it with `invalid_utf8` (`SSEOptions.strictUTF8` on):
    /// a model's answer is never silently changed to U+FFFD. The server has 600 s
    /// (`RealtimeClient.Configuration.responseTimeout`) to start its answer once the request is sent, as a model
    /// behind a queue may take minutes.
    public static func llm(
        body: [UInt8], headers: HTTPHeaders = HTTPHeaders(), terminator: StreamTerminator? = .data("[DONE]")
    ) -> Self {
        var c = Self()
        c.method = "POST"
        c.body = body
        c.headers = headers
        c.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        c.reconnect = .finite
        c.terminator = terminator
        c.sse.strictUTF8 = true
        c.responseTimeout = .seconds(600)
        return c
    }

    /// `llm(body:headers:terminator:)-([UInt8],_,_)` with the body as `Data` (what
    /// `JSONEncoder` returns).
    public static func llm(
        body: Data, headers: HTTPHeaders = HTTPHeaders(), terminator: StreamTerminator? = .data("[DONE]")
    ) -> Self {
        llm(body: [UInt8](body), headers: headers, terminator: terminator)
    }

    /// A typical LLM request from an `Encodable` value: POST with `request` encoded as the
    /// JSON body, `Authorization: Bearer <bearerToken>` when a token is given, sent once, no
    /// reconnect after the reply, which ends at `terminator` (see
    /// `llm(body:headers:terminator:)-([UInt8],_,_)`).
    ///
    /// ```swift
    /// let configuration = try RealtimeClient.Configuration.llm(
    ///     json: ChatRequest(model: "gpt-4o-mini", messages: history, stream: true),
    ///     bearerToken: apiKey)
    /// let client = try RealtimeClient(url: url, configuration: configuration)
    /// for await delta in client.deltas(format: .openAI) { … }
    /// ```
    ///
    /// `terminator` defaults to OpenAI's `data: [DONE]`; pass the format's
    /// (`AnthropicMessagesDecoder.terminator` is `event: message_stop`) for another API, nil
    /// for a server that marks no end. The token goes into `headers` like any other
    /// header: it is never logged or shown in an error. Headers in `headers` are sent too; an
    /// `Authorization` among them is replaced by the bearer token.
    ///
    /// - Throws: `RealtimeError` `invalidConfiguration` when `encoder` cannot encode
    ///   `request` (the message names the type, not the values).
    public static func llm<Request: Encodable>(
        json request: Request, bearerToken: String? = nil, headers: HTTPHeaders = HTTPHeaders(),
        encoder: JSONEncoder = JSONEncoder(), terminator: StreamTerminator? = .data("[DONE]")
    ) throws(RealtimeError) -> Self {
        let body: Data
        do {
            body = try encoder.encode(request)
        } catch {
            throw RealtimeError(.invalidConfiguration, detail: "the request (\(Request.self)) could not be encoded as JSON")
        }
        var headers = headers
        if let bearerToken { headers.replaceOrAdd(name: "Authorization", value: "Bearer \(bearerToken)") }
        return llm(body: body, headers: headers, terminator: terminator)
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RealtimeClient.Configuration {
    /// ``llm(body:headers:terminator:)-([UInt8],_,_)`` with the body as `Data` (what
    /// `JSONEncoder` returns).
    public static func llm(
        body: Data, headers: HTTPHeaders = HTTPHeaders(), terminator: StreamTerminator? = .data("[DONE]")
    ) -> Self {
        llm(body: [UInt8](body), headers: headers, terminator: terminator)
    }

    /// A typical LLM request from an `Encodable` value: POST with `request` encoded as the
    /// JSON body, `Authorization: Bearer <bearerToken>` when a token is given, sent once, no
    /// reconnect after the reply, which ends at `terminator` (see
    /// ``llm(body:headers:terminator:)-([UInt8],_,_)``).
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
    /// for a server that marks no end. The token goes into ``headers`` like any other
    /// header: it is never logged or shown in an error. Headers in `headers` are sent too; an
    /// `Authorization` among them is replaced by the bearer token.
    ///
    /// - Throws: ``RealtimeError`` `invalidConfiguration` when `encoder` cannot encode
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

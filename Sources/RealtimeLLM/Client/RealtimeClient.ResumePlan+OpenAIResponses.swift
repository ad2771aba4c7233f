#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RealtimeClient.ResumePlan {
    /// Resumes an OpenAI Responses reply created with `"background": true` and `"stream": true`
    /// after a cut, a reset or an idle timeout: `GET <the POST's URL>/{response id}?stream=true&
    /// starting_after=N`, where N is the `sequence_number` of the last event processed, with
    /// the POST's headers (the token) and no body. The POST is never sent again: a reply cut
    /// before its first event (`response.created`, which names the reply) is not resumed.
    ///
    /// ```swift
    /// var configuration = try RealtimeClient.Configuration.llm(json: request, bearerToken: key)
    /// configuration.resume = .openAIResponses
    /// let client = try RealtimeClient(url: URL(string: "https://api.openai.com/v1/responses")!, configuration: configuration)
    /// for await delta in client.deltas(format: .openAIResponses) { … }   // every delta once, in order
    /// ```
    ///
    /// The cursor (`RealtimeClient.lastEventID`) is `"<response id> <sequence number>"`;
    /// keep it in a `CursorStore` and a restarted program resumes the same reply with its first
    /// request. A reply still `queued` that a resume brings no further ends with `truncated`
    /// after `maxResumesWithoutProgress` resumes in a row. Use it with
    /// `deltas(format: .openAIResponses)` (or the decoder's terminator), whose end marker tells a
    /// complete reply from a cut one.
    public static var openAIResponses: Self {
        RealtimeClient.ResumePlan(
            cursor: { message, previous in OpenAIResponsesDecoder.resumeCursor(after: message, previous: previous) },
            request: { request, cursor in Self.responsesResumeRequest(request, cursor: cursor) })
    }

    /// `GET …/responses/{id}?stream=true&starting_after=N` from the POST, or nil when the cursor
    /// names no reply.
    static func responsesResumeRequest(_ request: TransportRequest, cursor: String) -> TransportRequest? {
        guard let parsed = OpenAIResponsesDecoder.parseResumeCursor(cursor), let id = parsed.responseID,
            var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        else { return nil }
        let base = parts.path.hasSuffix("/") ? String(parts.path.dropLast()) : parts.path
        parts.path = base + "/" + id
        var query = [URLQueryItem(name: "stream", value: "true")]
        if let sequence = parsed.sequenceNumber { query.append(URLQueryItem(name: "starting_after", value: "\(sequence)")) }
        parts.queryItems = query
        guard let url = parts.url else { return nil }
        var get = request
        get.url = url
        get.method = "GET"
        get.body = nil
        get.lastEventID = nil
        get.headers.remove(name: "Content-Type")
        return get
    }
}

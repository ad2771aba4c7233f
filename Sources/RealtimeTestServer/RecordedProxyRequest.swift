import RealtimeCore

/// One request a ``TestProxy`` received, as tests check it. Secrets stay out: the
/// `Proxy-Authorization` value is never kept, only whether the header was there.
package struct RecordedProxyRequest: Sendable, Hashable {
    /// What the proxy did with the request.
    package enum Outcome: Sendable, Hashable {
        /// `CONNECT`: answered 200 and relayed bytes both ways.
        case tunnelled
        /// Absolute-form request (`GET http://…`): sent on to the origin, answer streamed back.
        case forwarded
        /// Answered with this status itself (407 without valid credentials, 400 for a
        /// malformed request, 502 when the origin could not be reached, or the configured
        /// ``TestProxy/Configuration/refusal``).
        case refused(status: Int)
    }

    /// `CONNECT` or the forwarded method.
    package var method: String
    /// `host:port` for CONNECT, the absolute URL otherwise.
    package var target: String
    /// The request line as sent (`CONNECT 127.0.0.1:443 HTTP/1.1`).
    package var requestLine: String
    /// The request's header fields without `Proxy-Authorization`.
    package var headers: HTTPHeaders
    /// Whether the request carried a `Proxy-Authorization` field (its value is not kept).
    package var carriedProxyAuthorization: Bool
    /// What the proxy did with the request.
    package var outcome: Outcome
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a live connection negotiated; carried by ``ClientEvent/open(_:)``.
public struct ConnectionInfo: Sendable, Hashable {
    public var transport: TransportKind
    /// The URL actually connected to, after redirects.
    public var url: URL
    /// HTTP status of the response that opened the stream (200 for SSE, 101 for WebSocket).
    public var status: Int?
    /// Response headers (sensitive values are redacted in `description`).
    public var headers: HTTPHeaders
    /// The WebSocket subprotocol the server selected, if any.
    public var subprotocol: String?
    /// The WebSocket extensions the server accepted, as sent in `Sec-WebSocket-Extensions`.
    public var extensions: [String]
    /// 1 for the first connection of a client, incremented on every attempt.
    public var attempt: Int
    /// The HTTP version of the response that opened the stream: `"1.1"`, `"2"` (SSE over
    /// HTTPS when the server offers HTTP/2 through ALPN), `"1.0"`; nil when unknown.
    public var httpVersion: String?

    public init(
        transport: TransportKind, url: URL, status: Int? = nil, headers: HTTPHeaders = HTTPHeaders(),
        subprotocol: String? = nil, extensions: [String] = [], attempt: Int = 1, httpVersion: String? = nil
    ) {
        self.transport = transport
        self.url = url
        self.status = status
        self.headers = headers
        self.subprotocol = subprotocol
        self.extensions = extensions
        self.attempt = attempt
        self.httpVersion = httpVersion
    }
}

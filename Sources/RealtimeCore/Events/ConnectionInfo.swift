#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a live connection negotiated; carried by ``ClientEvent/open(_:)``.
public struct ConnectionInfo: Sendable, Hashable {
    /// The transport that opened the connection (SSE or WebSocket).
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
    /// The number of the attempt that opened this connection, counted over the client's whole
    /// life: 1 for the client's first attempt, one more for every attempt after it, whether
    /// it opened or failed (refused, timed out, answered with an error status, or abandoned
    /// because the headers provider threw). Waiting for the network, suspension and credential
    /// refreshes spend no number of their own; the attempts they lead to do. The same number
    /// appears in ``ErrorEvent/attempt`` for the attempt's failure, if any.
    public var attempt: Int
    /// How many attempts this connection took since the previous connection ended (or since
    /// the client started): 1 when the first attempt succeeded, 3 after two failures. Where
    /// ``attempt`` counts over the client's life, this counts over one outage.
    public var attemptInOutage: Int
    /// The HTTP version of the response that opened the stream: `"1.1"`, `"2"` (SSE over
    /// HTTPS when the server offers HTTP/2 through ALPN), `"1.0"`; nil when unknown.
    public var httpVersion: String?

    /// Connection details; for tests and custom transports.
    public init(
        transport: TransportKind, url: URL, status: Int? = nil, headers: HTTPHeaders = HTTPHeaders(),
        subprotocol: String? = nil, extensions: [String] = [], attempt: Int = 1, httpVersion: String? = nil,
        attemptInOutage: Int = 1
    ) {
        self.transport = transport
        self.url = url
        self.status = status
        self.headers = headers
        self.subprotocol = subprotocol
        self.extensions = extensions
        self.attempt = attempt
        self.attemptInOutage = attemptInOutage
        self.httpVersion = httpVersion
    }
}

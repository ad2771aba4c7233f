#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a transport needs to make one connection attempt; built by `RealtimeClient` for
/// every attempt (fresh headers, current resume cursor).
///
/// A ``RealtimeClient/ResumePlan`` changes what a resume request sends: the method, the URL,
/// the headers, the body and the cursor. The settings the client copies from its
/// configuration (timeouts, TLS, redirects, subprotocols, buffering) are part of the
/// transport SPI (`@_spi(Transport) import Realtime`), for code that drives a transport
/// itself.
public struct TransportRequest: Sendable {
    /// `http`/`https` for SSE, `ws`/`wss` for WebSocket.
    public var url: URL
    /// HTTP method (SSE only; WebSocket always uses GET). Default `GET`.
    public var method: String = "GET"
    /// User headers, sent as given (after the transport's own required headers).
    public var headers: HTTPHeaders = HTTPHeaders()
    /// Request body (SSE POST/PUT/PATCH/REPORT), nil for none.
    public var body: [UInt8]?
    /// SSE resume cursor: sent as `Last-Event-ID` when non-nil and non-empty.
    public var lastEventID: String?
    /// WebSocket subprotocols offered in `Sec-WebSocket-Protocol`, in preference order.
    @_spi(Transport) public var subprotocols: [String] = []
    /// TLS settings for `https` and `wss`.
    @_spi(Transport) public var tls: TLSConfiguration = .default
    /// Time allowed for DNS + TCP + TLS + the response head. Default 10 s.
    @_spi(Transport) public var connectTimeout: Duration = .seconds(10)
    /// SSE: time from the request's first byte to the final response head, replacing what
    /// is left of ``connectTimeout`` once the connection is up (a server that starts its
    /// answer late, as a slow tool or a queued model does). nil: the connect timeout covers
    /// the head too. A WebSocket handshake is bounded by the connect timeout. Default nil.
    @_spi(Transport) public var responseTimeout: Duration?
    /// A connection that delivers no byte for this long is dead (SSE comments and WebSocket
    /// control frames count). nil disables it. Default 300 s, as the client's.
    @_spi(Transport) public var idleTimeout: Duration? = .seconds(300)
    /// Redirects followed (SSE responses, WebSocket handshakes) before failing. Default 10.
    @_spi(Transport) public var maxRedirects: Int = 10
    /// Header names that carry a credential beyond those `HTTPHeaders.isSensitive(_:)`
    /// recognises (compared ignoring case): never forwarded to another origin on a redirect.
    /// Default none.
    @_spi(Transport) public var sensitiveHeaderNames: [String] = []
    /// Whether a redirect may go from `https` to `http` (or `wss` to `ws`), which would send
    /// the request, its cursor and its body in clear text. Default false: such a redirect
    /// fails the attempt with a `redirect` error.
    @_spi(Transport) public var allowsInsecureRedirects = false
    /// Events buffered for the consumer before the transport stops reading. Default 256.
    @_spi(Transport) public var eventBufferCapacity: Int = 256
    /// 1 for the client's first attempt.
    @_spi(Transport) public var attempt: Int = 1
    /// Deliver messages as `TransportEvent.messages(_:)` batches (one per wake-up, data
    /// packed, no `String` per event) where the transport can: SSE does; WebSocket ignores
    /// it and sends `message`s. A batch holds at most ``eventBufferCapacity`` events (at
    /// least 16) and at most 32 KiB of data, or one larger event alone. Default false.
    @_spi(Transport) public var prefersMessageBatches = false

    /// A GET request to `url` with the documented defaults.
    public init(url: URL) {
        self.url = url
    }
}

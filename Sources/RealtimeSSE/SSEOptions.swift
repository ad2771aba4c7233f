#if os(Linux)
@_spi(Transport) import RealtimeCore

/// Settings of the SSE transport beyond the per-attempt ``TransportRequest``.
///
/// Timeouts, redirects, TLS and headers come from the request; these are the knobs that
/// belong to the transport itself. Every field has a documented default.
public struct SSEOptions: Sendable {

    /// Size bounds for the parser: 16 MiB events, lines as long as an event, 1 KiB ids
    /// (a longer `id` is ignored, never sent back as `Last-Event-ID`). See
    /// ``SSEParser/Limits``.
    public var limits: SSEParser.Limits = .default
    /// Invalid UTF-8 in an event's `data`, `event` or `id` ends the attempt with
    /// `invalid_utf8` (a protocol error, retried per the reconnect policy) instead of being
    /// replaced with U+FFFD as WHATWG prescribes. Default false.
    public var strictUTF8 = false
    /// Deliver SSE comments (lines starting with `:`, often heartbeats) as messages whose
    /// ``Message/isComment`` is true, in stream order with the events. Default false:
    /// WHATWG ignores them (they still count as traffic for the idle timeout).
    public var reportsComments = false
    /// Default ``ProxyConfiguration/environment``. A proxy's refusal (`CONNECT` answered
    /// non-2xx, or 407) ends the attempt with a `proxy` error carrying its status.
    public var proxy: ProxyConfiguration = .environment
    /// Ask for HTTP/2 on `https` when libcurl offers it (ALPN); HTTP/1.1 otherwise and on
    /// plain `http`. Default true.
    ///
    /// Streams on one ``EventLoop`` (all clients on ``EventLoop/shared`` by default) to the
    /// same origin share HTTP/2 connections: a stream that starts while a connection to
    /// the origin is still being set up waits for it to learn whether it multiplexes
    /// (`CURLOPT_PIPEWAIT`) instead of opening another, and a new connection opens only
    /// when the server's `SETTINGS_MAX_CONCURRENT_STREAMS` is reached on the others. Each
    /// stream keeps its own request, timers, cursor and reconnects.
    public var preferHTTP2 = true
    /// Keep-alive probes (the ``TCPKeepAlive`` WebSocket uses too); nil turns them off.
    /// Default 30 s idle, 10 s interval, 3 probes.
    public var tcpKeepAlive: TCPKeepAlive? = TCPKeepAlive()
    /// `TCP_USER_TIMEOUT`: unacknowledged data older than this kills the connection
    /// (detects dead peers while sending, which keep-alive does not). nil leaves the
    /// kernel default. Default 30 s.
    ///
    /// An SSE stream sends nothing after its request, so on its own this never fires on a
    /// half-open connection; with ``tcpKeepAlive`` the probes are the unacknowledged
    /// data, and Linux then drops the connection at the first probe tick at least this
    /// long after the last byte received (keep-alive's probe count no longer applies):
    /// with the defaults, 40 s (probe at 30 s, verdict at the next tick). Measured on
    /// namespaces: keep-alive 1 s/1 s with 2 s here → dropped 2.0 s after the last byte.
    /// The idle timeout (`TransportRequest.idleTimeout`) is usually the tighter bound.
    public var tcpUserTimeout: Duration? = .seconds(30)
    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`), in bytes: the largest chunk
    /// handed to the parser at once. Clamped to 1 KiB…512 KiB. Default 16 KiB.
    ///
    /// libcurl allocates it per connection for the connection's whole life (it cannot be
    /// resized while a transfer runs), so it is memory a quiet stream keeps; 64 KiB made
    /// no measurable difference to a single fast stream's throughput on loopback.
    public var receiveBufferSize = 16 * 1024
    /// `User-Agent` sent unless the request's headers set one. nil sends none.
    /// Default `swift-realtime`.
    public var userAgent: String? = "swift-realtime"

    /// Accept a `200` answer with `Content-Type: application/json` as one message holding
    /// the whole body (at most this many bytes, else `message_too_large`), and a
    /// `202 Accepted` as an orderly end with no message: the answers a Model Context
    /// Protocol server may give a POST instead of a stream. Both end the attempt as a
    /// `204` does (no reconnect). nil (default): they fail as for any EventSource
    /// (`invalid_content_type`, `http_status`).
    public var jsonBodyLimit: Int?

    /// The documented defaults.
    public init() {}
}
#endif

#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// Server-Sent Events over libcurl: one connection attempt, per the `Transport` contract.
///
/// The request carries `Accept: text/event-stream`, `Cache-Control: no-cache`, the user's
/// headers and, when resuming, `Last-Event-ID`; GET by default, or any method with a body
/// (POST for LLM-style APIs). A `200` with `Content-Type: text/event-stream` (parameters
/// ignored) opens the stream; `204` ends it with `doNotReconnect`; `301/302/303/307/308` are
/// followed up to `TransportRequest.maxRedirects`; anything else ends with a typed
/// error carrying the status, a bounded body excerpt and `Retry-After`.
///
/// Redirects follow RFC 9110 §15.4: 303 turns any method but HEAD into a GET without a body,
/// 301/302 turn POST (only) into a GET without a body, 307/308 keep method and body; a dropped
/// body takes its `Content-*` headers with it; credential headers (`Authorization`, `Cookie`,
/// every name `HTTPHeaders.isSensitive(_:)` matches and the request's
/// `TransportRequest.sensitiveHeaderNames`) never go to another origin. A missing, empty or
/// non-HTTP `Location`, an `https` → `http` redirect (unless
/// `TransportRequest.allowsInsecureRedirects`), or one redirect too many, fails with
/// `.redirect`.
///
/// Every coding the installed libcurl decodes is advertised (`Accept-Encoding: gzip, deflate,
/// br, zstd`) and decoded before parsing; a response in any other `Content-Encoding`, or a body
/// that does not decode, ends with `invalid_content_encoding` and is never parsed as text.
/// `TransportEnd.requestWasDelivered` is false only while no byte of the request can have
/// been written (libcurl's pre-request callback marks the moment), so a POST is never sent
/// twice. Request header fields above 256 KiB, invalid header bytes and a proxy scheme libcurl
/// cannot use are `invalid_configuration` before any I/O.
///
/// All I/O runs on an ``EventLoop`` through its curl multi handle: bytes go from curl's
/// write callback straight into ``SSEParser``, events into the sink given to
/// ``start(delivering:)``. When the consumer falls behind (the sink is full) the transfer is
/// paused (`CURL_WRITEFUNC_PAUSE`) until ``resumeDelivery()``, so TCP flow control stops the
/// server instead of memory growing.
///
/// Thread-safe: ``start(delivering:)`` and ``close(code:reason:)`` may be called from any thread.
@_spi(Transport)
public final class SSETransport: Transport {
    public var kind: TransportKind { .sse }
    /// The request this transport's attempts send.
    public var request: TransportRequest { core.request }
    /// The transport's options.
    public var options: SSEOptions { core.options }
    let core: SSETransportCore<EventLoop, CurlEasyTransfer>
    /// The live attempt; created and used on the loop thread only. (Internal for the
    /// reference-cycle test.)
    var connection: LoopBound<SSETransportCore<EventLoop, CurlEasyTransfer>.Connection?, EventLoop> { core.connection }

    /// - Parameters:
    ///   - request: the attempt's URL (`http`/`https`), method, headers, body, resume ID,
    ///     TLS, timeouts, redirect limit and event buffer size.
    ///   - options: transport settings (parser limits, proxy, HTTP/2, TCP keep-alive…).
    ///   - eventLoop: the loop that runs the transfer; ``EventLoop/shared`` by default.
    public init(request: TransportRequest, options: SSEOptions = SSEOptions(), eventLoop: EventLoop = .shared) {
        core = SSETransportCore(request: request, options: options, loop: eventLoop) { request, options, loop in
            CurlEasyTransfer(request: request, options: options, loop: loop)
        }
    }

    public func start(delivering sink: any TransportSink) {
        core.start(delivering: sink)
    }

    /// Reads again after the sink was full; see `Transport.resumeDelivery()`.
    public func resumeDelivery() {
        core.resumeDelivery()
    }

    /// SSE cannot send: always throws `sendNotSupported`.
    public func send(_ message: OutboundMessage) async throws {
        try await core.send(message)
    }

    /// Expects a byte (event or comment) within `timeout`, else ends the attempt with
    /// `idleTimeout`; see `Transport.verifyConnection(within:)`.
    public func verifyConnection(within timeout: Duration) {
        core.verifyConnection(within: timeout)
    }

    /// Ends the attempt: removes the transfer, frees its handle and timers, and delivers
    /// `ended` with error `cancelled` unless the attempt already ended. `code` and `reason`
    /// are ignored (no close frame in SSE). Idempotent; any thread, any time.
    public func close(code: UInt16, reason: String) {
        core.close(code: code, reason: reason)
    }
}
#endif

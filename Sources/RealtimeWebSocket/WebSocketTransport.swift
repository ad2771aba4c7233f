#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// An RFC 6455 WebSocket client connection attempt: the `Transport` for `ws`/`wss` URLs.
///
/// Keeps the `Transport` contract: one attempt, no reconnects of its own (that is
/// `RealtimeClient`'s job). It connects (DNS off the loop, TCP, TLS for `wss`), performs the
/// opening handshake (following redirects up to `TransportRequest.maxRedirects`), then
/// delivers whole messages to the sink given to ``start(delivering:)``, answers pings, runs the heartbeat and idle timeout,
/// and ends with the closing handshake of RFC 6455 §7.
///
/// Threading: every method may be called from any thread or task. The connection itself
/// lives on `eventLoop` (one epoll thread for all connections); outbound messages cross to it
/// through its send queue, bounded and ordered.
@_spi(Transport)
public final class WebSocketTransport: Transport, Sendable {
    public var kind: TransportKind { .webSocket }
    /// The request this transport's attempts send.
    public var request: TransportRequest { core.request }
    /// The transport's options.
    public var options: WebSocketOptions { core.options }
    /// The loop that runs the connection's I/O and timers.
    public var eventLoop: EventLoop { core.loop }
    let core: WebSocketTransportCore<EventLoop, SocketByteStream>
    var sends: LockedValue<WebSocketSendMachine<CheckedContinuation<Void, any Error>>> { core.sends }

    /// Prepares an attempt; nothing happens on the network before ``start(delivering:)``.
    public init(request: TransportRequest, options: WebSocketOptions = WebSocketOptions(), eventLoop: EventLoop = .shared) {
        let core = WebSocketTransportCore(request: request, options: options, loop: eventLoop) { readChunkSize in
            SocketByteStream(eventLoop: eventLoop, readChunkSize: readChunkSize)
        }
        self.core = core
    }

    public func start(delivering sink: any TransportSink) {
        core.start(delivering: sink)
    }

    /// Reads again after the sink was full; see `Transport.resumeDelivery()`.
    public func resumeDelivery() {
        core.resumeDelivery()
    }

    /// Sends a text, binary or ping message: ``send(_:flush:)`` without waiting for the write.
    public func send(_ message: OutboundMessage) async throws {
        try await core.send(message, flush: false)
    }

    /// Sends a text, binary or ping message. Calls are sent in the order they are made, from
    /// any number of tasks. A message sent before the handshake completes waits for it.
    ///
    /// - `flush: false`: returns as soon as the message is accepted into the outbound queue,
    ///   without a trip through the event-loop thread, so a sequential loop of sends runs at
    ///   the speed of the queue; the loop writes everything queued since its last wake-up in
    ///   one system call (one `SSL_write` under TLS). The caller waits only while
    ///   ``WebSocketOptions/outboundQueueCapacity`` messages or ``WebSocketOptions/maxOutboundBytes`` bytes are
    ///   accepted and not yet written (back-pressure). An accepted message is written unless
    ///   the connection ends first; such a loss is reported by the attempt's `ended`.
    /// - `flush: true`: returns once the frame is written to the socket (handed to the
    ///   kernel), and throws if it could not be.
    ///
    /// Whatever starts the closing handshake (`close()`, the server's close frame, a protocol
    /// error) writes what was accepted before the close frame; `abort()` and a connection
    /// that ends without one drop it.
    ///
    /// Cancelling the calling task while it waits for room removes the message from the queue
    /// (it is never sent) and throws `cancelled`. Once accepted, a message is written even if
    /// the task is cancelled (a frame cannot be taken back half-written).
    ///
    /// - Throws: ``RealtimeError`` `notConnected` when the connection has ended or is
    ///   closing; `cancelled` when the task was cancelled while waiting for room;
    ///   `invalidConfiguration` for a ping payload over 125 bytes (RFC 6455 §5.5).
    public func send(_ message: OutboundMessage, flush: Bool) async throws {
        try await core.send(message, flush: flush)
    }

    /// Sends a ping and expects a byte within `timeout`, else ends the attempt with
    /// `idleTimeout`; see `Transport.verifyConnection(within:)`.
    public func verifyConnection(within timeout: Duration) {
        core.verifyConnection(within: timeout)
    }

    /// Starts the closing handshake with `code` and `reason` (RFC 6455 §7.1.2), or abandons
    /// the attempt if it is not open yet. Idempotent, callable from anywhere; the sink then
    /// receives `ended` with error `cancelled` (unless the attempt had already ended).
    public func close(code: UInt16, reason: String) {
        core.close(code: code, reason: reason)
    }

    /// Ends the attempt at once: a best-effort close frame (1001, going away), then the socket
    /// is dropped without waiting for the server's answer — the network is gone, so the
    /// closing handshake could only run into ``WebSocketOptions/closeTimeout``. Ends with `cancelled`.
    public func abort() {
        core.abort()
    }
}
#endif

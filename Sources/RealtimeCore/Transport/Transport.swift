/// One connection attempt over one wire protocol.
///
/// The contract every conformer keeps (the shared conformance suite checks it):
/// 1. **One attempt.** ``start(delivering:)`` is called at most once; it begins connecting
///    and returns at once. A transport never reconnects by itself: retry, backoff and resume
///    belong to `RealtimeClient`.
/// 2. **Events, in order, ending once.** The sink receives at most one
///    `TransportEvent.opened(_:)`, then messages, then exactly one
///    `TransportEvent.ended(_:)`, from one thread at a time. Nothing is delivered after
///    `ended`. An attempt closed before it started delivers its `ended` when it starts.
/// 3. **Nothing is lost, nothing is unbounded.** Messages are never dropped. When the sink
///    reports it is full (`TransportSink.deliver(_:)` returns false), the transport stops
///    reading from the network until ``resumeDelivery()`` (TCP back-pressure), instead of
///    buffering without bound.
/// 4. **Partial data is never delivered.** An SSE event cut mid-way, or a WebSocket message
///    cut mid-frame, is discarded, never surfaced as a message.
/// 5. **Sending** where the protocol allows it, in call order across tasks: ``send(_:)``
///    returns once the message is accepted into the transport's bounded outbound queue,
///    waiting only while that queue is full (back-pressure); accepted messages are written
///    in order, and one accepted when the connection ends is lost with it (the end is
///    reported by `ended`). ``send(_:flush:)`` with `flush: true` returns only once the frame
///    is written to the socket, and throws if it could not be. Both throw a
///    ``RealtimeError`` with code `notConnected` when the connection is gone or closing, or
///    `sendNotSupported` for SSE.
/// 6. **Closing and cancellation.** ``close(code:reason:)`` is idempotent and may be called
///    from any thread at any time, even before the connection opens. It ends the attempt
///    promptly (a WebSocket close handshake bounded in time), releases every socket, handle
///    and timer, and delivers `ended` with error `cancelled` unless already ended. (A
///    consumer of `TransportEvents` that stops iterating, its task cancelled, closes the
///    transport.)
/// 7. **Never harm the host.** No SIGPIPE, no global signal handlers, no secret in any
///    error or log; every descriptor close-on-exec, so a process the host spawns does not
///    keep a connection open.
/// 8. **Verify on request.** ``verifyConnection(within:)`` makes a live connection prove it
///    still works within a bound, or end with `idleTimeout`.
@_spi(Transport)
public protocol Transport: AnyObject, Sendable {
    /// Which protocol this transport speaks.
    var kind: TransportKind { get }

    /// Begins the attempt, delivering its events to `sink` on the I/O thread. Returns
    /// immediately. For an `AsyncSequence` of the events, use `TransportEvents`.
    func start(delivering sink: any TransportSink)

    /// The sink has room again after `TransportSink.deliver(_:)` returned false: read from
    /// the network again. Any thread; a call while reading is not paused does nothing.
    func resumeDelivery()

    /// Sends one message once it is accepted for writing; see the contract above.
    func send(_ message: OutboundMessage) async throws

    /// Sends one message; with `flush`, returns once it is written. See the contract above.
    func send(_ message: OutboundMessage, flush: Bool) async throws

    /// Ends the attempt. `code`/`reason` go into a WebSocket close frame (default 1000).
    func close(code: UInt16, reason: String)

    /// The network path changed under the live connection (an interface or address
    /// came or went): rather than trust a socket that may be bound to a vanished address,
    /// expect a sign of life from the server within `timeout`, and end the attempt with
    /// `idleTimeout` when none comes. WebSocket sends a ping (RFC 6455 §5.5.2) and waits
    /// for any byte; SSE, which cannot send, waits for any byte (an event or a comment), in
    /// effect tightening its idle timeout to `timeout` until the next byte arrives, which
    /// restores the normal one. A consumer that stopped reading (back-pressure) is not
    /// counted as silence. No-op before the connection opens and after it ends; callable
    /// from any thread.
    func verifyConnection(within timeout: Duration)

    /// Ends the attempt at once, without waiting for a closing handshake: for when the path
    /// to the server is known to be gone (the network went away), where a handshake could
    /// only run into its timeout. Otherwise like ``close(code:reason:)``: idempotent, from
    /// any thread, `ended` with error `cancelled` unless already ended.
    func abort()
}

extension Transport {
    /// ``send(_:)``, for transports whose `send` already waits for the write, or cannot send.
    public func send(_ message: OutboundMessage, flush: Bool) async throws {
        try await send(message)
    }

    /// Closes with code 1000 and no reason.
    public func close() { close(code: 1000, reason: "") }

    /// ``close(code:reason:)`` with 1001 ("going away"), for transports whose close is
    /// already immediate (no handshake to skip).
    public func abort() { close(code: 1001, reason: "") }
}

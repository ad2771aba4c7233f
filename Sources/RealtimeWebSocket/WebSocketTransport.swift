import RealtimeCore
import RealtimeIO
import Synchronization

/// An RFC 6455 WebSocket client connection attempt: the ``Transport`` for `ws`/`wss` URLs.
///
/// Keeps the ``Transport`` contract: one attempt, no reconnects of its own (that is
/// `RealtimeClient`'s job). It connects (DNS off the loop, TCP, TLS for `wss`), performs the
/// opening handshake (following redirects up to ``TransportRequest/maxRedirects``), then
/// delivers whole messages on ``events``, answers pings, runs the heartbeat and idle timeout,
/// and ends with the closing handshake of RFC 6455 §7.
///
/// Threading: every method may be called from any thread or task. The connection itself
/// lives on `eventLoop` (one epoll thread for all connections); outbound messages cross to it
/// through a bounded, ordered queue.
public final class WebSocketTransport: Transport, Sendable {
    public var kind: TransportKind { .webSocket }
    public let events: BoundedChannel<TransportEvent>
    public let request: TransportRequest
    public let options: Options
    public let eventLoop: EventLoop
    let outbox: LockedValue<WebSocketOutbox<CheckedContinuation<Void, any Error>>>
    /// The connection, confined to the loop thread (the box checks it on every access).
    private let connection: LoopBoundBox<WebSocketConnection>
    private let started = Atomic<Bool>(false)
    /// Ids for senders, so a cancelled one can be found in the outbox's waiting queue.
    private let nextSenderID = Atomic<UInt64>(0)

    /// Prepares an attempt; nothing happens on the network before ``start()``.
    public init(request: TransportRequest, options: Options = Options(), eventLoop: EventLoop = .shared) {
        self.request = request
        self.options = options
        self.eventLoop = eventLoop
        self.events = BoundedChannel(capacity: max(request.eventBufferCapacity, 1))
        self.outbox = LockedValue(WebSocketOutbox(capacity: max(options.outboundQueueCapacity, 1), maxBytes: max(options.maxOutboundBytes, 1)))
        let connection = WebSocketConnection(request: request, options: options, eventLoop: eventLoop, events: events)
        self.connection = LoopBoundBox(connection, loop: eventLoop)
        connection.transport = self
        // Weak: the channel must never own the connection (its deinit reports to the channel,
        // which must not happen while the channel holds its own lock).
        events.setDemandHandler { [eventLoop, weak box = self.connection] in
            guard let box else { return }
            eventLoop.execute { box.value.consumerDemand() }
        }
        events.setTerminationHandler { [weak self] in
            // The consumer stopped iterating: the attempt is over (contract item 6).
            self?.close(code: 1000, reason: "")
        }
    }

    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let connection = self.connection
        eventLoop.execute { connection.value.start() }
    }

    /// Sends a text, binary or ping message: ``send(_:flush:)`` without waiting for the write.
    public func send(_ message: OutboundMessage) async throws {
        try await send(message, flush: false)
    }

    /// Sends a text, binary or ping message. Calls are sent in the order they are made, from
    /// any number of tasks. A message sent before the handshake completes waits for it.
    ///
    /// - `flush: false`: returns as soon as the message is accepted into the outbound queue,
    ///   without a trip through the event-loop thread, so a sequential loop of sends runs at
    ///   the speed of the queue; the loop writes everything queued since its last wake-up in
    ///   one system call (one `SSL_write` under TLS). The caller waits only while
    ///   ``Options/outboundQueueCapacity`` messages or ``Options/maxOutboundBytes`` bytes are
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
        if case .ping(let payload) = message, payload.count > 125 {
            throw RealtimeError(.invalidConfiguration, detail: "a ping payload is at most 125 bytes (RFC 6455 §5.5)")
        }
        if !flush, let action = outbox.withLock({ $0.offer(message) }) {
            switch action {
            case .accepted(let drain): if drain { scheduleDrain() }
            case .rejected(let error): throw error
            case .waiting: preconditionFailure("WebSocketOutbox.offer never queues a sender")
            }
            return
        }
        let id = nextSenderID.add(1, ordering: .relaxed).newValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                switch outbox.withLock({ $0.submit(message, continuation, flush: flush, id: id) }) {
                case .rejected(let error):
                    continuation.resume(throwing: error)
                case .accepted(let drain):
                    if drain { scheduleDrain() }
                    if !flush { continuation.resume() }
                case .waiting:
                    // Cancelled before the handler could see the submission: leave now.
                    if Task.isCancelled { cancelWaitingSender(id) }
                }
            }
        } onCancel: {
            cancelWaitingSender(id)
        }
    }

    /// Asks the loop to write what the outbox accepted.
    private func scheduleDrain() {
        let connection = self.connection
        eventLoop.execute { connection.value.drainOutbox() }
    }

    /// Sends a ping and expects a byte within `timeout`, else ends the attempt with
    /// `idleTimeout`; see ``Transport/verifyConnection(within:)``.
    public func verifyConnection(within timeout: Duration) {
        let connection = self.connection
        eventLoop.execute { connection.value.verify(within: timeout) }
    }

    /// Resumes sender `id` with `cancelled` if it is still waiting for room (outside the lock).
    private func cancelWaitingSender(_ id: UInt64) {
        guard let continuation = outbox.withLock({ $0.cancelWaiting(id: id) }) else { return }
        continuation.resume(throwing: RealtimeError(.cancelled, detail: "send cancelled while waiting for room in the outbound queue"))
    }

    /// Starts the closing handshake with `code` and `reason` (RFC 6455 §7.1.2), or abandons
    /// the attempt if it is not open yet. Idempotent, callable from anywhere; `events` then
    /// ends with error `cancelled` (unless the attempt had already ended).
    public func close(code: UInt16, reason: String) {
        rejectQueuedSends()
        let connection = self.connection
        eventLoop.execute { connection.value.close(code: code, reason: reason) }
    }

    /// Ends the attempt at once: a best-effort close frame (1001, going away), then the socket
    /// is dropped without waiting for the server's answer — the network is gone, so the
    /// closing handshake could only run into ``Options/closeTimeout``. Ends with `cancelled`.
    public func abort() {
        rejectQueuedSends()
        let connection = self.connection
        eventLoop.execute { connection.value.abort() }
    }

    private func rejectQueuedSends() {
        let rejected = outbox.withLock { $0.stopAccepting() }
        let error = RealtimeError(.notConnected, detail: "connection closing")
        for continuation in rejected { continuation.resume(throwing: error) }
    }
}

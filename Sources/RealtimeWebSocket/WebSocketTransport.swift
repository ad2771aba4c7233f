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

    /// Sends a text, binary or ping message. Returns once the frame is written to the socket
    /// (handed to the kernel). Calls are sent in the order they are made, from any number of
    /// tasks; when ``Options/outboundQueueCapacity`` messages are already queued, the caller
    /// waits for room. A message sent before the handshake completes waits for it.
    ///
    /// Cancelling the calling task while it waits for room removes the message from the queue
    /// (it is never sent) and throws `cancelled`. Once admitted, a message is written even if
    /// the task is cancelled (a frame cannot be taken back half-written).
    ///
    /// - Throws: ``RealtimeError`` `notConnected` when the connection has ended or is
    ///   closing; `cancelled` when the task was cancelled while waiting for room;
    ///   `invalidConfiguration` for a ping payload over 125 bytes (RFC 6455 §5.5).
    public func send(_ message: OutboundMessage) async throws {
        if case .ping(let payload) = message, payload.count > 125 {
            throw RealtimeError(.invalidConfiguration, detail: "a ping payload is at most 125 bytes (RFC 6455 §5.5)")
        }
        let id = nextSenderID.add(1, ordering: .relaxed).newValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let action = outbox.withLock { $0.submit(message, continuation, id: id) }
                switch action {
                case .rejected(let error):
                    continuation.resume(throwing: error)
                case .scheduleDrain:
                    let connection = self.connection
                    eventLoop.execute { connection.value.drainOutbox() }
                case .none:
                    // Cancelled before the handler could see the submission: leave now.
                    if Task.isCancelled { cancelWaitingSender(id) }
                }
            }
        } onCancel: {
            cancelWaitingSender(id)
        }
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

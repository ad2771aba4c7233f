#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
import Synchronization

/// The body of `WebSocketTransport`, generic over the seam: the scheduler its connection
/// runs on and the byte stream it opens. `WebSocketTransport` is this on the epoll loop with
/// `SocketByteStream`; tests run it on a manual scheduler with an in-memory stream.
///
/// Threading: every method may be called from any thread or task. The connection itself
/// lives on `loop`; outbound messages cross to it through its send queue (a
/// ``WebSocketSendMachine`` under a lock), the one queue a message waits in before the
/// connection encodes it for the byte stream.
package final class WebSocketTransportCore<Loop: LoopScheduler, Stream: ByteStream>: Transport, Sendable {
    typealias Connection = WebSocketConnection<Loop, Stream>
    package var kind: TransportKind { .webSocket }
    package let request: TransportRequest
    package let options: WebSocketOptions
    package let loop: Loop
    /// The connection's send queue, which `send` reaches without a trip through the loop.
    let sends: LockedValue<Connection.SendMachine>
    /// The connection, confined to the loop thread (the box checks it on every access).
    private let connection: LoopBound<Connection, Loop>
    private let started = Atomic<Bool>(false)
    /// Ids for senders, so a cancelled one can be found among those waiting for room.
    private let nextSenderID = Atomic<UInt64>(0)

    /// Prepares an attempt on `loop`, whose connections open their byte streams with
    /// `makeStream`; nothing happens before ``start()``. `random` (tests only) replaces the
    /// system generators for handshake keys and masks.
    package init(
        request: TransportRequest, options: WebSocketOptions, loop: Loop,
        random: (any RandomNumberGenerator & Sendable)? = nil, makeStream: @escaping (_ readChunkSize: Int) -> Stream
    ) {
        self.request = request
        self.options = options
        self.loop = loop
        let connection = Connection(
            request: request, options: options, loop: loop, random: random, makeStream: makeStream)
        self.sends = connection.sends
        self.connection = LoopBound(connection, loop: loop)
    }

    package func start(delivering sink: any TransportSink) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let connection = self.connection
        loop.execute { connection.value.start(delivering: sink) }
    }

    /// See `Transport.resumeDelivery()`: one hop to the loop, which reads again if reading
    /// was paused for the sink.
    package func resumeDelivery() {
        let connection = self.connection
        loop.execute { connection.value.consumerDemand() }
    }

    /// Sends a text, binary or ping message: ``send(_:flush:)`` without waiting for the write.
    package func send(_ message: OutboundMessage) async throws {
        try await send(message, flush: false)
    }

    /// See `WebSocketTransport.send(_:flush:)`.
    package func send(_ message: OutboundMessage, flush: Bool) async throws {
        if case .ping(let payload) = message, payload.count > 125 {
            throw RealtimeError(.invalidConfiguration, detail: "a ping payload is at most 125 bytes (RFC 6455 §5.5)")
        }
        if !flush, let action = sends.withLock({ $0.offer(message) }) {
            switch action {
            case .accepted(let drain): if drain { scheduleDrain() }
            case .rejected(let error): throw error
            case .waiting: preconditionFailure("WebSocketSendMachine.offer never queues a sender")
            }
            return
        }
        let id = nextSenderID.add(1, ordering: .relaxed).newValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                switch sends.withLock({ $0.submit(message, waiter: continuation, flush: flush, id: id) }) {
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

    /// Asks the loop to write what the send queue accepted.
    private func scheduleDrain() {
        let connection = self.connection
        loop.execute { connection.value.drainSends() }
    }

    /// Sends a ping and expects a byte within `timeout`, else ends the attempt with
    /// `idleTimeout`; see `Transport.verifyConnection(within:)`.
    package func verifyConnection(within timeout: Duration) {
        let connection = self.connection
        loop.execute { connection.value.verify(within: timeout) }
    }

    /// Resumes sender `id` with `cancelled` if it is still waiting for room (outside the lock).
    private func cancelWaitingSender(_ id: UInt64) {
        guard let continuation = sends.withLock({ $0.cancelWaiting(id: id) }) else { return }
        continuation.resume(throwing: RealtimeError(.cancelled, detail: "send cancelled while waiting for room in the outbound queue"))
    }

    /// See `WebSocketTransport.close(code:reason:)`.
    package func close(code: UInt16, reason: String) {
        rejectQueuedSends()
        let connection = self.connection
        loop.execute { connection.value.close(code: code, reason: reason) }
    }

    /// See `WebSocketTransport.abort()`.
    package func abort() {
        rejectQueuedSends()
        let connection = self.connection
        loop.execute { connection.value.abort() }
    }

    private func rejectQueuedSends() {
        let rejected = sends.withLock { $0.stopAccepting() }
        for continuation in rejected { continuation.resume(throwing: Connection.SendMachine.closingError) }
    }
}
#endif

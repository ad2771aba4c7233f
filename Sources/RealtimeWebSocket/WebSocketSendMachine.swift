@_spi(Transport) import RealtimeCore

/// The one queue between a WebSocket transport's `send` (any task) and the connection's byte
/// stream, and the rules it keeps, without I/O: events in, actions out.
///
/// Every message sent on a connection waits here, from `send` until the connection takes it to
/// encode and hand to the byte stream (whose outbound buffer then holds only bytes for the
/// kernel). The queue is in order; its front part is **accepted** (counted against the bounds,
/// its non-flush senders already returned), the rest are senders **waiting for room**, which
/// are accepted strictly in order, so a waiting sender is never overtaken by a later one.
///
/// Bounds, on what was accepted and not yet written to the kernel (still queued, or handed to
/// the stream and waiting for it): ``capacity`` messages and ``maxBytes`` payload bytes. A
/// message larger than ``maxBytes`` is accepted alone, when nothing else is in flight (it could
/// never fit otherwise). A `flush` sender rides with its message and is resumed when the write
/// of its frame completes.
///
/// The connection's phase decides what leaves the queue:
/// - **connecting** (before the opening handshake completed): accepted messages stay; they
///   are written, in order, right after the handshake (``opened()``).
/// - **open**: the first acceptance since the last drain asks the driver for one drain
///   (``takeWritable()``), which takes everything accepted.
/// - **closing** (the closing handshake began or the connection failed, ``closingStarted(_:)``):
///   what was accepted is written before the close frame when the close frame is ours to
///   send; senders waiting for room fail; nothing new is accepted.
/// - **closed** (``ended()``): every sender still waiting fails.
///
/// `close()` and `abort()` stop the acceptance from the caller's thread at once
/// (``stopAccepting()``), before the connection hears of them on its loop.
///
/// `Waiter` is whatever resumes a sender (a `CheckedContinuation` in the transport, a plain
/// value in tests). The machine lives in the module of the transport that calls it under its
/// send lock for every message, so the optimizer specialises it for the transport's waiter
/// (a generic call across modules costs metadata lookups and value-witness copies per call).
package struct WebSocketSendMachine<Waiter> {
    /// One message in the queue.
    package struct Entry {
        package var message: OutboundMessage
        /// The sender still waiting on this message: for room, or (flush) for the write.
        package var waiter: Waiter?
        package var flush: Bool
        /// Identifies a waiting sender for ``cancelWaiting(id:)``.
        package var id: UInt64
        /// Payload bytes (``OutboundMessage/payloadSize``).
        package var size: Int
    }

    package enum Phase: Sendable, Hashable {
        case connecting, open, closing, closed
    }

    package enum SubmitAction {
        /// Accepted. `drain`: ask the loop for one drain. A non-flush sender resumes now.
        case accepted(drain: Bool)
        /// No room: the sender waits in the queue until it is accepted (or cancelled).
        case waiting
        /// Nothing is accepted any more (closing or closed).
        case rejected(RealtimeError)
    }

    /// What ``completed(count:bytes:)`` freed.
    package struct Admission {
        /// Ask the loop for one drain (the newly accepted messages can be written).
        package var drain = false
        /// Non-flush senders accepted from the waiting part: resume them.
        package var resume: [Waiter] = []
    }

    /// What a change of phase resolves.
    package struct Resolution {
        /// Accepted messages to write now, in order (before the close frame, when closing).
        package var write: [Entry] = []
        /// Senders to fail with ``error``.
        package var fail: [Waiter] = []
        package var error: RealtimeError
    }

    /// Why the connection stopped taking messages (``closingStarted(_:)``).
    package enum Closing: Sendable, Hashable {
        /// The closing handshake began (ours or the peer's close frame): the close frame is
        /// ours to write, after what was accepted.
        case handshake
        /// The connection failed (RFC 6455 §7.1.7) and writes a close frame, after what was
        /// accepted.
        case failing
        /// The connection failed after its close frame already went out: what was accepted
        /// is dropped.
        case failingAfterCloseFrame
    }

    package let capacity: Int
    package let maxBytes: Int
    package private(set) var phase = Phase.connecting
    /// False once `close()`, `abort()` or the connection stopped new messages.
    package private(set) var accepting = true
    /// Accepted and not yet written to the kernel (queued, or inside the byte stream).
    package private(set) var inFlight = 0
    /// Payload bytes of the messages in flight.
    package private(set) var inFlightBytes = 0
    /// The queue: `queue[head..<waitingStart]` accepted, `queue[waitingStart...]` waiting for
    /// room; `queue[..<head]` was taken for writing (compacted away).
    private var queue: [Entry] = []
    private var head = 0
    private var waitingStart = 0
    private var drainScheduled = false

    package init(capacity: Int, maxBytes: Int) {
        self.capacity = max(capacity, 1)
        self.maxBytes = max(maxBytes, 1)
    }

    // MARK: - Queries

    /// Messages in the queue, accepted or waiting (not those handed to the stream).
    package var queuedCount: Int { queue.count - head }
    /// Accepted messages still in the queue (before open, or between drains).
    package var acceptedCount: Int { waitingStart - head }
    /// Senders waiting for room.
    package var waitingCount: Int { queue.count - waitingStart }

    private var nobodyWaits: Bool { waitingStart == queue.count }

    private func hasRoom(for size: Int) -> Bool {
        inFlight == 0 || (inFlight < capacity && inFlightBytes + size <= maxBytes)
    }

    /// The error for a send after `close()`, `abort()` or the end.
    package static var closedError: RealtimeError { RealtimeError(.notConnected, detail: "connection closed") }
    /// The error for senders waiting for room when the closing handshake begins.
    package static var closingError: RealtimeError { RealtimeError(.notConnected, detail: "connection closing") }
    /// The error for senders waiting for room when the connection fails.
    package static var failedError: RealtimeError { RealtimeError(.notConnected, detail: "connection failed") }

    // MARK: - Senders (any thread, under the owner's lock)

    /// The fast path of a non-flush `send`: accepts `message` when there is room and nobody
    /// waits; nil when the sender must wait (it then calls ``submit(_:waiter:flush:id:)``).
    package mutating func offer(_ message: OutboundMessage) -> SubmitAction? {
        guard accepting else { return .rejected(Self.closedError) }
        let size = message.payloadSize
        guard nobodyWaits && hasRoom(for: size) else { return nil }
        queue.append(Entry(message: message, waiter: nil, flush: false, id: 0, size: size))
        return .accepted(drain: admitNext())
    }

    /// Accepts `message` or queues its sender behind the others. With `flush` the waiter stays
    /// with the message until its write completes.
    package mutating func submit(_ message: OutboundMessage, waiter: Waiter, flush: Bool, id: UInt64) -> SubmitAction {
        guard accepting else { return .rejected(Self.closedError) }
        let size = message.payloadSize
        let admit = nobodyWaits && hasRoom(for: size)
        queue.append(Entry(message: message, waiter: admit && !flush ? nil : waiter, flush: flush, id: id, size: size))
        guard admit else { return .waiting }
        return .accepted(drain: admitNext())
    }

    /// Moves the first waiting entry into the accepted part; true when a drain must be asked.
    private mutating func admitNext() -> Bool {
        inFlight += 1
        inFlightBytes += queue[waitingStart].size
        waitingStart += 1
        guard phase == .open, !drainScheduled else { return false }
        drainScheduled = true
        return true
    }

    /// Sender `id` was cancelled: if it still waits for room, it leaves the queue and its
    /// waiter is returned (to resume with an error). An accepted message is past the point of
    /// no return (it is written): nil.
    package mutating func cancelWaiting(id: UInt64) -> Waiter? {
        guard let index = queue[waitingStart...].firstIndex(where: { $0.id == id }) else { return nil }
        return queue.remove(at: index).waiter
    }

    /// `close()` or `abort()`: nothing more is accepted; the senders waiting for room fail
    /// (with ``closingError``). What was accepted stays for the connection (a closing
    /// handshake writes it before the close frame).
    package mutating func stopAccepting() -> [Waiter] {
        accepting = false
        return removeWaiting()
    }

    private mutating func removeWaiting() -> [Waiter] {
        let waiters = queue[waitingStart...].compactMap(\.waiter)
        queue.removeSubrange(waitingStart...)
        compact()
        return waiters
    }

    // MARK: - The connection (its loop thread, under the owner's lock)

    /// The opening handshake completed: the messages accepted so far, to write now, in order.
    package mutating func opened() -> [Entry] {
        precondition(phase == .connecting, "WebSocketSendMachine opened twice or after closing")
        phase = .open
        return takeAccepted()
    }

    /// The drain the driver was asked for: everything accepted, to encode and write together.
    /// Empty outside the open phase (the phase changes hand out what is due).
    package mutating func takeWritable() -> [Entry] {
        drainScheduled = false
        guard phase == .open else { return [] }
        return takeAccepted()
    }

    private mutating func takeAccepted() -> [Entry] {
        let taken = Array(queue[head..<waitingStart])
        head = waitingStart
        compact()
        return taken
    }

    /// `count` messages of `bytes` payload bytes, handed to the stream, were written to the
    /// kernel (or failed): their room takes waiting senders, in order.
    package mutating func completed(count: Int, bytes: Int) -> Admission {
        precondition(count <= inFlight && bytes <= inFlightBytes, "WebSocketSendMachine completed more than was in flight")
        inFlight -= count
        inFlightBytes -= bytes
        var admission = Admission()
        guard accepting else { return admission }
        while waitingStart < queue.count, hasRoom(for: queue[waitingStart].size) {
            if !queue[waitingStart].flush, let waiter = queue[waitingStart].waiter {
                admission.resume.append(waiter)
                queue[waitingStart].waiter = nil
            }
            if admitNext() { admission.drain = true }
        }
        return admission
    }

    /// The connection stopped taking messages (see ``Closing``): nothing more is accepted and
    /// the senders waiting for room fail.
    package mutating func closingStarted(_ closing: Closing) -> Resolution {
        precondition(phase == .open || phase == .closing, "WebSocketSendMachine: closing outside an open connection")
        phase = .closing
        accepting = false
        let error = closing == .handshake ? Self.closingError : Self.failedError
        var resolution = Resolution(fail: removeWaiting(), error: error)
        if closing == .failingAfterCloseFrame {
            let dropped = takeAccepted()
            drop(dropped)
            resolution.fail += dropped.compactMap(\.waiter)
        } else {
            resolution.write = takeAccepted()
        }
        return resolution
    }

    /// The attempt is over: every sender still waiting (for room, or flush senders of accepted
    /// messages that were never written) fails with ``closedError``. Messages already handed to
    /// the stream are resolved by their write's completion.
    package mutating func ended() -> Resolution {
        precondition(phase != .closed, "WebSocketSendMachine ended twice")
        phase = .closed
        accepting = false
        var resolution = Resolution(fail: removeWaiting(), error: Self.closedError)
        let dropped = takeAccepted()
        drop(dropped)
        resolution.fail += dropped.compactMap(\.waiter)
        return resolution
    }

    /// Accepted messages that will never be written give their room back.
    private mutating func drop(_ entries: [Entry]) {
        inFlight -= entries.count
        inFlightBytes -= entries.reduce(0) { $0 + $1.size }
    }

    /// Forgets the prefix taken for writing once it is all of the queue, or most of a long one.
    private mutating func compact() {
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.capacity <= 1024)
            head = 0
            waitingStart = 0
        } else if head >= 256 && head * 2 >= queue.count {
            queue.removeFirst(head)
            waitingStart -= head
            head = 0
        }
    }
}

extension WebSocketSendMachine: Sendable where Waiter: Sendable {}
extension WebSocketSendMachine.Entry: Sendable where Waiter: Sendable {}

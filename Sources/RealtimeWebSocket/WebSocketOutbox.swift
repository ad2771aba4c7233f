import RealtimeCore

/// The bounded, ordered queue between `send` callers (any task) and the loop thread.
///
/// Lives in a `LockedValue` inside ``WebSocketTransport``. A message is **accepted** when
/// there is room: it goes to `ready` (drained by the loop in FIFO order) and its sender
/// returns at once, without a trip through the loop thread; only a `flush` sender keeps
/// waiting, riding with its message until the frame is written. Senders beyond the bounds
/// wait in `waiting`, also FIFO, so a waiting sender is never overtaken by a later one.
///
/// Two bounds on what was accepted and not yet written to the socket: ``capacity``
/// messages and ``maxBytes`` bytes of payload; a message larger than ``maxBytes`` is
/// accepted alone, when nothing else is in flight (it could never fit otherwise).
///
/// `Waiter` is whatever resumes a sender (a `CheckedContinuation` in the transport, a plain
/// value in tests).
struct WebSocketOutbox<Waiter> {
    /// An accepted message, with the sender to resume once it is written (`flush`).
    struct Entry {
        var message: OutboundMessage
        var flushWaiter: Waiter?
    }

    enum SubmitAction {
        /// Accepted. `drain`: the loop must be asked to drain. A non-flush sender resumes now.
        case accepted(drain: Bool)
        /// No room: the sender waits in the queue until it is accepted (or cancelled).
        case waiting
        case rejected(RealtimeError)
    }

    /// What ``completed(count:bytes:)`` freed.
    struct Admission {
        /// Ask the loop to drain the newly accepted messages.
        var drain = false
        /// Non-flush senders accepted from the waiting queue: resume them.
        var resume: [Waiter] = []
    }

    let capacity: Int
    let maxBytes: Int
    /// Accepted and not yet written to the socket (in `ready` or inside the connection).
    private(set) var inFlight = 0
    /// Payload bytes of the messages in flight.
    private(set) var inFlightBytes = 0
    private var ready: [Entry] = []
    /// Senders waiting for room, with the id their cancellation handler knows them by.
    private var waiting: [(message: OutboundMessage, waiter: Waiter, flush: Bool, id: UInt64)] = []
    private var waitingHead = 0
    private var drainScheduled = false
    private(set) var accepting = true

    init(capacity: Int, maxBytes: Int) {
        self.capacity = capacity
        self.maxBytes = maxBytes
    }

    private func hasRoom(for size: Int) -> Bool {
        inFlight == 0 || (inFlight < capacity && inFlightBytes + size <= maxBytes)
    }

    private var nobodyWaits: Bool { waitingHead == waiting.count }

    /// The fast path of a non-flush `send`: accepts `message` when there is room and nobody
    /// waits; nil when the sender must wait (then it calls ``submit(_:_:flush:id:)``).
    mutating func offer(_ message: OutboundMessage) -> SubmitAction? {
        guard accepting else { return .rejected(Self.closed) }
        let size = message.payloadSize
        guard nobodyWaits && hasRoom(for: size) else { return nil }
        return .accepted(drain: accept(Entry(message: message, flushWaiter: nil), size: size))
    }

    /// Accepts `message` or queues its sender; `id` identifies the sender for
    /// ``cancelWaiting(id:)``. With `flush` the waiter is resumed when the frame is written.
    mutating func submit(_ message: OutboundMessage, _ waiter: Waiter, flush: Bool, id: UInt64) -> SubmitAction {
        guard accepting else { return .rejected(Self.closed) }
        let size = message.payloadSize
        if nobodyWaits && hasRoom(for: size) {
            return .accepted(drain: accept(Entry(message: message, flushWaiter: flush ? waiter : nil), size: size))
        }
        waiting.append((message, waiter, flush, id))
        return .waiting
    }

    /// True when a drain must be scheduled.
    private mutating func accept(_ entry: Entry, size: Int) -> Bool {
        inFlight += 1
        inFlightBytes += size
        ready.append(entry)
        if drainScheduled { return false }
        drainScheduled = true
        return true
    }

    /// The sender `id` was cancelled: if it is still waiting for room, it leaves the queue and
    /// its waiter is returned (to resume with an error). An accepted message is past the point
    /// of no return: it is written, and nil is returned.
    mutating func cancelWaiting(id: UInt64) -> Waiter? {
        guard let index = waiting[waitingHead...].firstIndex(where: { $0.id == id }) else { return nil }
        return waiting.remove(at: index).waiter
    }

    /// Loop side: everything accepted so far, in order.
    mutating func takeReady() -> [Entry] {
        drainScheduled = false
        defer { ready.removeAll(keepingCapacity: true) }
        return ready
    }

    /// Loop side: `count` accepted messages of `bytes` payload bytes were written (or
    /// failed). Accepts waiting senders into the freed room.
    mutating func completed(count: Int, bytes: Int) -> Admission {
        inFlight -= count
        inFlightBytes -= bytes
        var admission = Admission()
        while waitingHead < waiting.count, accepting {
            let next = waiting[waitingHead]
            let size = next.message.payloadSize
            guard hasRoom(for: size) else { break }
            waitingHead += 1
            if accept(Entry(message: next.message, flushWaiter: next.flush ? next.waiter : nil), size: size) {
                admission.drain = true
            }
            if !next.flush { admission.resume.append(next.waiter) }
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
        return admission
    }

    /// No more messages: returns the senders still waiting for room, to fail. What was
    /// accepted stays for the loop (`close()` writes it before the close frame).
    mutating func stopAccepting() -> [Waiter] {
        accepting = false
        let rejected = waiting[waitingHead...].map(\.waiter)
        waiting = []
        waitingHead = 0
        return rejected
    }

    /// The connection is closing or over: accepted messages not yet drained are dropped;
    /// returns their flush senders, to fail.
    mutating func discardReady() -> [Waiter] {
        let dropped = ready.compactMap(\.flushWaiter)
        inFlight -= ready.count
        inFlightBytes -= ready.reduce(0) { $0 + $1.message.payloadSize }
        ready = []
        return dropped
    }

    static var closed: RealtimeError { RealtimeError(.notConnected, detail: "connection closed") }
}

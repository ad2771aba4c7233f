import RealtimeCore

/// The bounded, ordered queue between `send` callers (any task) and the loop thread.
///
/// Lives in a `LockedValue` inside ``WebSocketTransport``. Order is the order in which
/// callers take the lock: admitted messages go to `ready` (drained by the loop in FIFO
/// order) and callers beyond the bounds wait in `waiting`, also FIFO, so a waiting sender is
/// never overtaken by a later one. Two bounds: ``capacity`` messages and ``maxBytes`` bytes
/// of payload admitted and not yet written; a message larger than ``maxBytes`` is admitted
/// alone, when nothing else is in flight (it could never fit otherwise).
///
/// `Continuation` is whatever resumes a sender (a `CheckedContinuation` in the transport,
/// a plain value in tests).
struct WebSocketOutbox<Continuation> {

    enum SubmitAction {
        case none
        case scheduleDrain
        case rejected(RealtimeError)
    }

    let capacity: Int
    let maxBytes: Int
    /// Admitted and not yet written to the socket (in `ready` or inside the connection).
    private(set) var inFlight = 0
    /// Payload bytes of the messages in flight.
    private(set) var inFlightBytes = 0
    private var ready: [(OutboundMessage, Continuation)] = []
    /// Senders waiting for room, with the id their cancellation handler knows them by.
    private var waiting: [(OutboundMessage, Continuation, id: UInt64)] = []
    private var waitingHead = 0
    private var drainScheduled = false
    private(set) var accepting = true

    init(capacity: Int, maxBytes: Int) {
        self.capacity = capacity
        self.maxBytes = maxBytes
    }

    /// Payload bytes a message counts for.
    static func size(of message: OutboundMessage) -> Int {
        switch message {
        case .text(let text): return text.utf8.count
        case .binary(let bytes): return bytes.count
        case .ping(let payload): return payload.count
        }
    }

    private func hasRoom(for size: Int) -> Bool {
        inFlight == 0 || (inFlight < capacity && inFlightBytes + size <= maxBytes)
    }

    /// `id` identifies the sender for ``cancelWaiting(id:)``.
    mutating func submit(_ message: OutboundMessage, _ continuation: Continuation, id: UInt64) -> SubmitAction {
        guard accepting else {
            return .rejected(RealtimeError(.notConnected, detail: "connection closed"))
        }
        let size = Self.size(of: message)
        if waitingHead == waiting.count && hasRoom(for: size) {
            inFlight += 1
            inFlightBytes += size
            ready.append((message, continuation))
            if drainScheduled { return .none }
            drainScheduled = true
            return .scheduleDrain
        }
        waiting.append((message, continuation, id))
        return .none
    }

    /// The sender `id` was cancelled: if it is still waiting for room, it leaves the queue and
    /// its continuation is returned (to resume with an error). A message already admitted
    /// is past the point of no return: it is written, and nil is returned.
    mutating func cancelWaiting(id: UInt64) -> Continuation? {
        guard let index = waiting[waitingHead...].firstIndex(where: { $0.id == id }) else { return nil }
        return waiting.remove(at: index).1
    }

    /// Loop side: everything admitted so far, in order.
    mutating func takeReady() -> [(OutboundMessage, Continuation)] {
        drainScheduled = false
        defer { ready.removeAll(keepingCapacity: true) }
        return ready
    }

    /// Loop side: one admitted message was written (or failed). Admits waiters into the
    /// freed room; returns true when a drain is now needed.
    mutating func completed(_ message: OutboundMessage) -> Bool {
        inFlight -= 1
        inFlightBytes -= Self.size(of: message)
        var admitted = false
        while waitingHead < waiting.count, hasRoom(for: Self.size(of: waiting[waitingHead].0)) {
            let (message, continuation, _) = waiting[waitingHead]
            ready.append((message, continuation))
            waitingHead += 1
            inFlight += 1
            inFlightBytes += Self.size(of: message)
            admitted = true
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
        guard admitted, !drainScheduled else { return false }
        drainScheduled = true
        return true
    }

    /// No more messages: returns every continuation not yet handed to the loop, to fail.
    mutating func stopAccepting() -> [Continuation] {
        accepting = false
        let rejected = ready.map(\.1) + waiting[waitingHead...].map(\.1)
        inFlight -= ready.count
        inFlightBytes -= ready.reduce(0) { $0 + Self.size(of: $1.0) }
        ready = []
        waiting = []
        waitingHead = 0
        return rejected
    }
}

/// The client's outbox (``SendPolicy/queue(maxMessages:maxBytes:timeout:)``): messages sent
/// while no connection was open, in the order they were sent, waiting for the next `open`.
/// Part of ``ClientStateMachine``; pure data, no I/O.
///
/// A message is *queued* until the driver takes it for the live connection, then *in flight*
/// (one at a time, so the order holds) until the transport accepted it or refused it. A
/// refused one (the connection went away before accepting it) goes back to the head of the
/// queue: it was never sent, so sending it on the next connection sends it once.
package struct SendQueue: Sendable {
    package struct Entry: Sendable {
        package var id: UInt64
        package var message: OutboundMessage
        package var bytes: Int
        package var flush: Bool
        /// When the message expires (client clock); nil: never.
        package var deadline: Duration?

        package init(id: UInt64, message: OutboundMessage, bytes: Int, flush: Bool, deadline: Duration?) {
            self.id = id
            self.message = message
            self.bytes = bytes
            self.flush = flush
            self.deadline = deadline
        }
    }

    /// Waiting for a connection, oldest first.
    private(set) var queued: [Entry] = []
    /// Payload bytes of ``queued``.
    private(set) var bytes = 0
    /// The message handed to the live connection and not yet accepted or refused.
    private(set) var inFlight: Entry?
    /// The driver is handing queued messages to the open connection (one drain at a time,
    /// across connections: a drain outlives the connection it started on).
    var draining = false
    /// The attempt whose connection refused a message (it is going away): nothing more is
    /// handed to it, and later sends queue behind the refused one until the next `open`.
    var refusedAttempt: Int?
    /// The deadline the driver's expiry timer is armed for, if any.
    var armedExpiry: Duration?

    /// The last id given to a queued message.
    private var lastID: UInt64 = 0

    var isEmpty: Bool { queued.isEmpty && inFlight == nil }

    /// A new id for a message about to be queued (1, 2, …).
    mutating func allocateID() -> UInt64 {
        lastID += 1
        return lastID
    }

    /// Whether a new message of `size` bytes fits within the bounds (the message going out
    /// counts: it comes back when its connection refuses it).
    func admits(size: Int, maxMessages: Int, maxBytes: Int) -> Bool {
        let flying = inFlight.map { (1, $0.bytes) } ?? (0, 0)
        return queued.count + flying.0 + 1 <= maxMessages && bytes + flying.1 + size <= maxBytes
    }

    mutating func append(_ entry: Entry) {
        queued.append(entry)
        bytes += entry.bytes
    }

    /// Takes the oldest queued message and marks it in flight.
    mutating func takeNext() -> Entry? {
        precondition(inFlight == nil, "one queued message in flight at a time")
        guard !queued.isEmpty else { return nil }
        let entry = queued.removeFirst()
        bytes -= entry.bytes
        inFlight = entry
        return entry
    }

    /// The in-flight message `id` was accepted (true) or refused (false: back to the head).
    /// Returns false when `id` is not the one in flight.
    mutating func settle(_ id: UInt64, accepted: Bool) -> Bool {
        guard let entry = inFlight, entry.id == id else { return false }
        inFlight = nil
        if !accepted { prepend(entry) }
        return true
    }

    /// Puts `entry` at the head: it was sent before everything queued.
    mutating func prepend(_ entry: Entry) {
        queued.insert(entry, at: 0)
        bytes += entry.bytes
    }

    /// Removes queued message `id` (not one in flight); returns whether it was queued.
    mutating func remove(_ id: UInt64) -> Bool {
        guard let i = queued.firstIndex(where: { $0.id == id }) else { return false }
        bytes -= queued.remove(at: i).bytes
        return true
    }

    /// Removes and returns the queued messages whose deadline is at or before `now`.
    mutating func removeExpired(now: Duration) -> [Entry] {
        var expired: [Entry] = []
        queued.removeAll { entry in
            guard let deadline = entry.deadline, deadline <= now else { return false }
            expired.append(entry)
            return true
        }
        bytes -= expired.reduce(0) { $0 + $1.bytes }
        return expired
    }

    /// Removes and returns every queued message (the in-flight one stays until settled).
    mutating func removeAllQueued() -> [Entry] {
        defer {
            queued = []
            bytes = 0
        }
        return queued
    }

    /// The earliest deadline among the queued messages.
    var earliestDeadline: Duration? { queued.lazy.compactMap(\.deadline).min() }
}

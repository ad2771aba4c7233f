/// The messages of a connection in its handshake (the on-open hook runs and the connection is
/// not ready): the hook takes the ones it waits for (``RealtimeClient/OpenContext/receive(where:)``),
/// and those it leaves go to the consumer after the `open`, in the order they arrived. A pure
/// value kept in ``ClientStorage/State``, under the client's lock; it resumes nothing itself.
///
/// **Bound.** At most `capacity` messages are held (the client's event buffer capacity): the
/// relay then pauses the transport, which reads again once the hook took the inbox down to
/// half of it, or the connection became ready and the consumer's buffer has room.
struct HandshakeInbox {
    /// The attempt whose handshake this is; 0 when no handshake runs.
    private(set) var attempt = 0
    /// Held messages, oldest first, each with its serial number (for the hook's scan).
    private(set) var held: [(serial: UInt64, message: Message)] = []
    private var nextSerial: UInt64 = 0
    /// The hook, waiting for a message after the ones it has seen, or for the end.
    private var waiter: CheckedContinuation<Void, Never>?
    /// The transport was told to pause and not yet to read again.
    private(set) var paused = false
    var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Attempt `attempt`'s handshake starts (what an earlier one held is gone with it).
    mutating func begin(attempt: Int) -> CheckedContinuation<Void, Never>? {
        let old = end()
        self.attempt = attempt
        return old.waiter
    }

    /// The handshake is over (ready, failed, or the attempt ended): returns what was held and
    /// the hook's waiter to resume; `paused` tells whether the transport was paused.
    mutating func end() -> (messages: [Message], waiter: CheckedContinuation<Void, Never>?, paused: Bool) {
        defer {
            attempt = 0
            held = []
            waiter = nil
            paused = false
        }
        return (held.map(\.message), waiter, paused)
    }

    /// Holds `messages` of attempt `attempt` (dropped when its handshake is not running).
    /// Returns the hook's waiter to resume, and false when the transport must pause.
    mutating func hold(_ messages: [Message], attempt: Int) -> (waiter: CheckedContinuation<Void, Never>?, mayContinue: Bool) {
        guard attempt == self.attempt, attempt > 0 else { return (nil, true) }
        for message in messages {
            nextSerial &+= 1
            held.append((nextSerial, message))
        }
        defer { waiter = nil }
        if held.count >= capacity { paused = true }
        return (messages.isEmpty ? nil : waiter, !paused)
    }

    /// What the hook of attempt `attempt` may look at: the held messages after serial
    /// `seen`; nil when its handshake is over (the connection is gone or ready).
    func unseen(after seen: UInt64, attempt: Int) -> ArraySlice<(serial: UInt64, message: Message)>? {
        guard attempt == self.attempt, attempt > 0 else { return nil }
        let start = held.firstIndex { $0.serial > seen } ?? held.endIndex
        return held[start...]
    }

    /// What ``wait(_:after:attempt:)`` did with the hook's waiter.
    enum Wait {
        /// Kept: resumed by the next message or the end.
        case waiting
        /// Resume it now: the handshake is over, or messages after the ones seen are there.
        case ready
        /// Resume it now: another receive of the hook is already waiting.
        case busy
    }

    /// The hook waits for a message after serial `seen` (it found nothing new).
    mutating func wait(_ waiter: CheckedContinuation<Void, Never>, after seen: UInt64, attempt: Int) -> Wait {
        guard attempt == self.attempt, attempt > 0, held.last.map({ $0.serial <= seen }) ?? true else { return .ready }
        guard self.waiter == nil else { return .busy }
        self.waiter = waiter
        return .waiting
    }

    /// The hook's waiter, taken (it stopped waiting: its task was cancelled).
    mutating func takeWaiter() -> CheckedContinuation<Void, Never>? {
        defer { waiter = nil }
        return waiter
    }

    /// The hook took the message with serial `serial`: true when the paused transport may
    /// read again.
    mutating func take(_ serial: UInt64) -> Bool {
        held.removeAll { $0.serial == serial }
        guard paused, held.count <= capacity / 2 else { return false }
        paused = false
        return true
    }
}

/// The acknowledgements the client waits for, as a pure table: ids per namespace (a counter
/// from 0, never reused while the client lives), each waiter resolved exactly once (by the
/// ack, its timeout, the end of the connection it went out on, or cancellation).
struct SocketIOAckTable<Waiter: Sendable>: Sendable {
    struct Key: Hashable, Sendable {
        var namespace: String
        var id: Int
    }

    private struct Entry: Sendable {
        var waiter: Waiter
        /// The attempt whose connection took the emit (nil while it waits in the outbox).
        var sentOn: Int?
    }

    private var nextID: [String: Int] = [:]
    private var entries: [Key: Entry] = [:]
    /// The last attempt whose end was reported: an emit that went out on it or before can
    /// no longer be acknowledged.
    private var endedThrough = 0

    var count: Int { entries.count }

    /// A fresh id for `namespace`.
    mutating func allocate(namespace: String) -> Key {
        let id = nextID[namespace, default: 0]
        nextID[namespace] = id + 1
        return Key(namespace: namespace, id: id)
    }

    mutating func wait(_ key: Key, _ waiter: Waiter) {
        precondition(entries[key] == nil, "an ack id registered twice")
        entries[key] = Entry(waiter: waiter)
    }

    /// The emit went out on attempt `attempt`'s connection: its end now fails the waiter.
    /// Returns the waiter, taken, when that end was reported already (the emit went out just
    /// before it): nothing can acknowledge it any more.
    mutating func sent(_ key: Key, on attempt: Int) -> Waiter? {
        guard attempt > endedThrough else { return take(key) }
        entries[key]?.sentOn = attempt
        return nil
    }

    /// Attempt `attempt`'s connection ended: takes the waiters whose emits went out on it (or
    /// on an earlier one).
    mutating func connectionEnded(through attempt: Int) -> [Waiter] {
        endedThrough = Swift.max(endedThrough, attempt)
        let keys = entries.filter { ($0.value.sentOn ?? .max) <= attempt }.map(\.key)
        return keys.compactMap { entries.removeValue(forKey: $0)?.waiter }
    }

    /// Takes the waiter of `key` (ack, timeout, cancellation); nil when it was resolved already
    /// or never existed.
    mutating func take(_ key: Key) -> Waiter? {
        entries.removeValue(forKey: key)?.waiter
    }

    /// Takes the waiters of `namespace` whose emits went out (the server disconnected it).
    mutating func takeSent(namespace: String) -> [Waiter] {
        let keys = entries.filter { $0.value.sentOn != nil && $0.key.namespace == namespace }.map(\.key)
        return keys.compactMap { entries.removeValue(forKey: $0)?.waiter }
    }

    /// Takes every waiter (the client stopped).
    mutating func takeAll() -> [Waiter] {
        defer { entries = [:] }
        return entries.values.map(\.waiter)
    }
}

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
        /// Handed to a connection (false while it waits in the outbox).
        var sent = false
    }

    private var nextID: [String: Int] = [:]
    private var entries: [Key: Entry] = [:]

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

    /// The emit went out on a connection: its end now fails the waiter.
    mutating func markSent(_ key: Key) {
        entries[key]?.sent = true
    }

    /// Takes the waiter of `key` (ack, timeout, cancellation); nil when it was resolved already
    /// or never existed.
    mutating func take(_ key: Key) -> Waiter? {
        entries.removeValue(forKey: key)?.waiter
    }

    /// Takes the waiters whose emits went out (the connection ended under them), or those of
    /// one namespace only.
    mutating func takeSent(namespace: String? = nil) -> [Waiter] {
        let keys = entries.filter { $0.value.sent && (namespace == nil || $0.key.namespace == namespace) }.map(\.key)
        return keys.compactMap { entries.removeValue(forKey: $0)?.waiter }
    }

    /// Takes every waiter (the client stopped).
    mutating func takeAll() -> [Waiter] {
        defer { entries = [:] }
        return entries.values.map(\.waiter)
    }
}

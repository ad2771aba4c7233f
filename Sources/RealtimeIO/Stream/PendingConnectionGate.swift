/// Which connections may be in their opening phase at once, per remote address, sans I/O.
///
/// RFC 6455 §4.1 (with erratum 3473): a client has no more than one WebSocket connection in
/// the CONNECTING state per IP address and port, however the host is named, and serializes
/// the others; where the address is unknown (through a proxy, which resolves the name) each
/// host name counts as a distinct host. A connection *enters* with its key once its address
/// is known, and either holds a place at once or waits its turn in arrival order; it
/// *leaves* when it is established or has failed (or was dropped while waiting), and the
/// places it freed go to the next in line.
///
/// Each entry carries its own limit (a connection's options may allow more than one at a
/// time): a waiting entry is admitted while fewer than its limit hold places for its key.
/// The queue is first in, first out per key: an entry that allows fewer never lets a later
/// one pass it, so nobody starves.
package struct PendingConnectionGate: Sendable {
    package struct Ticket: Hashable, Sendable {
        let id: UInt64
        let key: String
    }

    private struct Waiting: Sendable {
        var ticket: Ticket
        var limit: Int
    }

    /// One key's line: `entries[head...]` wait, in arrival order (admission from the front
    /// is O(1), so ten thousand entries cost linear time).
    private struct Line: Sendable {
        var entries: [Waiting] = []
        var head = 0

        var first: Waiting? { head < entries.count ? entries[head] : nil }
        var count: Int { entries.count - head }

        mutating func popFirst() {
            head += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: false)
                head = 0
            } else if head >= 64, head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }

        mutating func remove(_ ticket: Ticket) {
            guard let i = entries[head...].firstIndex(where: { $0.ticket == ticket }) else { return }
            entries.remove(at: i)
        }
    }

    private var holding: [String: Set<Ticket>] = [:]
    private var lines: [String: Line] = [:]
    private var nextID: UInt64 = 0

    package init() {}

    /// A connection to `key` wants to open, allowing `limit` (≥ 1) opening at once. Returns
    /// its ticket and whether it holds a place now; if not, a later ``leave(_:)`` of another
    /// ticket names it among the admitted.
    package mutating func enter(_ key: String, limit: Int) -> (ticket: Ticket, admitted: Bool) {
        precondition(limit >= 1, "a pending-connection limit is at least 1")
        nextID += 1
        let ticket = Ticket(id: nextID, key: key)
        if lines[key] == nil, holding[key, default: []].count < limit {
            holding[key, default: []].insert(ticket)
            return (ticket, true)
        }
        lines[key, default: Line()].entries.append(Waiting(ticket: ticket, limit: limit))
        return (ticket, false)
    }

    /// `ticket`'s connection is established, failed or gone, holding a place or still waiting:
    /// the tickets admitted in its place, in arrival order. Leaving twice is harmless.
    package mutating func leave(_ ticket: Ticket) -> [Ticket] {
        let key = ticket.key
        if holding[key]?.remove(ticket) == nil {
            lines[key]?.remove(ticket)
        }
        var admitted: [Ticket] = []
        while let first = lines[key]?.first, holding[key, default: []].count < first.limit {
            lines[key]?.popFirst()
            holding[key, default: []].insert(first.ticket)
            admitted.append(first.ticket)
        }
        if holding[key]?.isEmpty == true { holding[key] = nil }
        if lines[key]?.count == 0 { lines[key] = nil }
        return admitted
    }

    /// Connections holding a place for `key`.
    package func holdingCount(_ key: String) -> Int { holding[key]?.count ?? 0 }

    /// Connections waiting for `key`.
    package func waitingCount(_ key: String) -> Int { lines[key]?.count ?? 0 }

    /// Keys with a connection holding or waiting (none once every connection has left).
    package var activeKeys: Int { Set(holding.keys).union(lines.keys).count }
}

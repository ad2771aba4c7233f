#if os(Linux)
/// The driver of an event loop's ``PendingConnectionGate`` (loop thread only): a connection
/// that has to wait is called back on the loop when it is admitted, never from inside
/// another connection's ``leave(_:)``.
package final class PendingConnections {
    private unowned let loop: EventLoop
    private var gate = PendingConnectionGate()
    private var waiting: [PendingConnectionGate.Ticket: @Sendable () -> Void] = [:]

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Enters `key`'s line (see ``PendingConnectionGate/enter(_:limit:)``). When the ticket
    /// is not admitted at once, `admitted` runs on the loop once it is, unless it leaves first.
    package func enter(
        _ key: String, limit: Int, admitted: @escaping @Sendable () -> Void
    ) -> (ticket: PendingConnectionGate.Ticket, admitted: Bool) {
        precondition(loop.inEventLoop, "PendingConnections is used on its loop")
        let entry = gate.enter(key, limit: limit)
        if !entry.admitted { waiting[entry.ticket] = admitted }
        return entry
    }

    /// The ticket's connection is established, failed or gone; whoever it admits is called
    /// back in a later turn of the loop.
    package func leave(_ ticket: PendingConnectionGate.Ticket) {
        precondition(loop.inEventLoop, "PendingConnections is used on its loop")
        waiting[ticket] = nil
        for next in gate.leave(ticket) {
            if let admitted = waiting.removeValue(forKey: next) { loop.execute(admitted) }
        }
    }

    package func holdingCount(_ key: String) -> Int { gate.holdingCount(key) }
    package func waitingCount(_ key: String) -> Int { gate.waitingCount(key) }
}

extension EventLoop {
    /// The loop's connections in their opening phase, per remote address (RFC 6455 §4.1);
    /// loop thread only.
    package var pendingConnections: PendingConnections {
        local(PendingConnections.self) { PendingConnections(loop: self) }
    }
}
#endif

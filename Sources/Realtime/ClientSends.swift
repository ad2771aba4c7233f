/// The driver's side of the outbox, kept under the client's lock in ``ClientStorage``: the
/// callers of `send` whose message waits in the state machine's outbox, and its expiry timer.
/// Every decision (what is queued, when it goes out, when it expires) is the machine's.
struct ClientSends {
    /// Callers waiting for their queued message, by send id.
    var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// Resolutions that arrived before their caller started waiting (nil: sent).
    var early: [UInt64: RealtimeError?] = [:]
    /// The expiry timer's task, and the arming it belongs to (a newer arming or a disarm
    /// makes an older task stale).
    var expiry: ClientTimer?
    var expiryGeneration: UInt64 = 0
    /// Who waits for the outbox to hold a number of messages (``RealtimeClient/untilOutboxHolds(_:)``).
    var outboxWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// The outbox watchers that `outboxCount` messages satisfy, taken out.
    mutating func watchers(satisfiedBy outboxCount: Int) -> [CheckedContinuation<Void, Never>] {
        guard !outboxWatchers.isEmpty else { return [] }
        let due = outboxWatchers.filter { $0.count <= outboxCount }
        outboxWatchers.removeAll { $0.count <= outboxCount }
        return due.map(\.continuation)
    }

    /// The continuation to resume for each resolution; a resolution whose caller is not
    /// waiting yet is kept for it.
    mutating func take(_ resolutions: [ClientStateMachine.SendResolution]) -> [(CheckedContinuation<Void, any Error>, RealtimeError?)] {
        var ready: [(CheckedContinuation<Void, any Error>, RealtimeError?)] = []
        for r in resolutions {
            if let waiter = waiters.removeValue(forKey: r.id) {
                ready.append((waiter, r.error))
            } else {
                early[r.id] = .some(r.error)
            }
        }
        return ready
    }
}

extension ClientStateMachine {
    /// The consumer took event `sequence` (carrying `id`) and, by asking for it, processed the
    /// one before: the fast path of `for await`.
    package mutating func consumerTook(_ sequence: UInt64, id: String?) -> ConsumerAction {
        let save = ledger.commit()
        ledger.deliver(sequence, id: id)
        return ConsumerAction(save: save, caughtUp: false)
    }

    /// The consumer processed everything it was handed (it asks for more and must wait, or it
    /// acknowledged).
    package mutating func consumerProcessed() -> ConsumerAction {
        let save = ledger.commit()
        return ConsumerAction(save: save, caughtUp: isWaitingForConsumer && ledger.caughtUp)
    }

    /// The consumer was handed event `sequence` after waiting for it.
    package mutating func consumerReceived(_ sequence: UInt64, id: String?) {
        ledger.deliver(sequence, id: id)
    }

    /// The consumer caught up while the next attempt waited for it (after
    /// ``ConsumerAction/caughtUp``).
    package mutating func consumerCaughtUp(now: Duration) -> [Action] {
        advance(now: now)
    }

    private var isWaitingForConsumer: Bool {
        guard configuration.waitsForConsumer, case .waiting = phase else { return false }
        return true
    }
}

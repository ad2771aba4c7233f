extension ClientStateMachine {
    /// The consumer processed events up to `progress.processed` (it drained its buffer and
    /// asks for more, or it acknowledged): the cursor for the next attempt, and the gate of
    /// exact resume, which lets the next attempt go once everything emitted was processed.
    package mutating func consumerProcessed(_ progress: ConsumerProgress, now: Duration) -> Effects {
        precondition(progress.processed <= emitted, "the consumer cannot process what was not emitted")
        guard progress.processed > consumer.processed || progress.cursorSequence > consumer.cursorSequence else {
            return .ignored(.staleProgress)  // nothing new (a report overtaken by a later one)
        }
        consumer = progress
        guard configuration.waitsForConsumer, consumerCaughtUp, case .waiting = phase else { return .nothing }
        return advance(now: now)
    }
}

extension ClientStateMachine {
    /// The cursor store's `save` threw: reported to the consumer (`willRetry` true, since the
    /// client goes on) and counted; nothing else changes. After the end there is nobody to
    /// tell. The report does not change whether a reconnect was promised (see ``finalWord(_:)``).
    package mutating func cursorSaveFailed(_ error: RealtimeError) -> Effects {
        guard !isTerminal else { return .ignored(.clientDone) }
        statistics.cursorSaveFailures += 1
        let promised = promisedRetry
        let log = ClientLogRecord(.warning, "cursor store save failed", ["error": error.description])
        let effects = Effects.log(log)
            + emit(.error(ErrorEvent(error: error, willRetry: true, retryIn: nil, attempt: counters.total)))
        promisedRetry = promised
        return effects
    }
}

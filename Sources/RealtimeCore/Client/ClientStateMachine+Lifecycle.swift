extension ClientStateMachine {
    /// The consumer started iterating. `network` is the monitor's status when one applies
    /// (the driver starts observing before this, so no change is missed).
    package mutating func start(network status: NetworkStatus?, now: Duration) -> Effects {
        guard case .idle = phase else {
            if case .closed = phase { return .ignored(.clientDone) }
            preconditionFailure("start() happens once")
        }
        if let status, configuration.monitorsNetwork {
            network.down = !status.isUsable
            network.pathGeneration = status.pathGeneration
        }
        if configuration.loadsCursor {
            phase = .loadingCursor
            return .flags(loadCursor: true)
        }
        phase = .waiting(Self.firstWait(now: now))
        return advance(now: now)
    }

    /// The cursor store answered (nil: nothing stored). It is used when no cursor was
    /// configured; the driver loads it into the consumer's ``ResumeLedger`` too.
    package mutating func cursorLoaded(_ cursor: String?, now: Duration) -> Effects {
        if case .closed = phase { return .ignored(.clientDone) }
        guard case .loadingCursor = phase else { preconditionFailure("a cursor loaded outside the loading") }
        if consumer.cursor == nil, consumer.cursorSequence == 0 { consumer.cursor = cursor }
        phase = .waiting(Self.firstWait(now: now))
        return advance(now: now)
    }

    /// The app went to the background: end the live attempt cleanly, disarm the timer, make
    /// no attempt until ``resume(now:)``. The events do not end.
    package mutating func suspend(now: Duration) -> Effects {
        guard !isTerminal, !suspended else { return .nothing }
        suspended = true
        var effects = Effects.log(ClientLogRecord(.info, "suspended"))
        switch phase {
        case .attempting(var a):
            guard a.ending == nil else { break }
            a.ending = .suspend
            let live = a.stage
            phase = .attempting(a)
            if case .preparing = live { break }
            effects += .transport(.close)
        case .waiting:
            effects += advance(now: now)
        case .idle, .loadingCursor, .bookingRetrySlot, .finished, .closed:
            break
        }
        return effects
    }

    /// Ends a suspension: connect at once, with the cursor and a fresh backoff.
    package mutating func resume(now: Duration) -> Effects {
        guard !isTerminal, suspended else { return .nothing }
        suspended = false
        backoff.reset()
        networkBackoff.reset()
        return Effects.log(ClientLogRecord(.info, "resumed")) + advance(now: now)
    }

    /// The user closed the client (or stopped consuming): stop everything at once. After the
    /// policy finished, only the consumer's buffer is dropped (the state keeps its reason).
    package mutating func close() -> Effects {
        var effects = Effects.nothing
        switch phase {
        case .closed:
            return .nothing
        case .finished:
            // Already done: the reason stays the policy's; the buffer goes.
            return .flags(terminate: true)
        case .idle:
            break
        case .loadingCursor, .bookingRetrySlot:
            effects = .flags(stopObservingNetwork: true, cancelWork: true)
        case .waiting(let w):
            effects = .flags(cancelTimer: w.timer != nil, stopObservingNetwork: true, cancelWork: true)
        case .attempting(let a):
            if case .preparing = a.stage {} else { effects = .transport(.close) }
            effects += .flags(stopObservingNetwork: true, cancelWork: true)
        }
        if !effects.isEmpty { effects = .log(ClientLogRecord(.info, "closed by the application")) + effects }
        phase = .closed
        return effects + .flags(terminate: true) + failQueuedSends()
    }

    static func firstWait(now: Duration) -> Waiting {
        Waiting(deadline: nil, timer: nil, booking: .booked, admission: .done, retryAt: now)
    }
}

extension ClientStateMachine {
    /// The consumer started iterating. `network` is the monitor's status when one applies
    /// (the driver starts observing before this, so no change is missed).
    package mutating func start(network status: NetworkStatus?, now: Duration) -> [Action] {
        guard case .idle = phase else {
            if case .closed = phase { return [] }
            preconditionFailure("start() happens once")
        }
        if let status, configuration.monitorsNetwork {
            network.down = !status.isUsable
            network.pathGeneration = status.pathGeneration
        }
        if configuration.loadsCursor {
            phase = .loadingCursor
            return [.loadCursor]
        }
        phase = .waiting(Self.firstWait(now: now))
        return advance(now: now)
    }

    /// The cursor store answered (nil: nothing stored). It is used when no cursor was
    /// configured; the driver loads it into the consumer's ``ResumeLedger`` too.
    package mutating func cursorLoaded(_ cursor: String?, now: Duration) -> [Action] {
        guard case .loadingCursor = phase else { return [] }  // closed meanwhile
        if consumer.cursor == nil, consumer.cursorSequence == 0 { consumer.cursor = cursor }
        phase = .waiting(Self.firstWait(now: now))
        return advance(now: now)
    }

    /// The app went to the background: end the live attempt cleanly, disarm the timer, make
    /// no attempt until ``resume(now:)``. The events do not end.
    package mutating func suspend(now: Duration) -> [Action] {
        guard !isTerminal, !suspended else { return [] }
        suspended = true
        var actions: [Action] = [.log(ClientLogRecord(.info, "suspended"))]
        switch phase {
        case .attempting(var a):
            guard a.ending == nil else { break }
            a.ending = .suspend
            let live = a.stage
            phase = .attempting(a)
            if case .preparing = live { break }
            actions.append(.closeTransport)
        case .waiting:
            actions += advance(now: now)
        case .idle, .loadingCursor, .bookingRetrySlot, .finished, .closed:
            break
        }
        return actions
    }

    /// Ends a suspension: connect at once, with the cursor and a fresh backoff.
    package mutating func resume(now: Duration) -> [Action] {
        guard !isTerminal, suspended else { return [] }
        suspended = false
        backoff.reset()
        networkBackoff.reset()
        return [.log(ClientLogRecord(.info, "resumed"))] + advance(now: now)
    }

    /// The user closed the client (or stopped consuming): stop everything at once. After the
    /// policy finished, only the consumer's buffer is dropped (the state keeps its reason).
    package mutating func close() -> [Action] {
        var actions: [Action] = []
        switch phase {
        case .closed:
            return []
        case .finished:
            // Already done: the reason stays the policy's; the buffer goes.
            return [.terminate]
        case .idle:
            break
        case .loadingCursor, .bookingRetrySlot:
            actions = [.cancelWork, .stopObservingNetwork]
        case .waiting(let w):
            if w.timer != nil { actions.append(.cancelTimer) }
            actions += [.cancelWork, .stopObservingNetwork]
        case .attempting(let a):
            if case .preparing = a.stage {} else { actions.append(.closeTransport) }
            actions += [.cancelWork, .stopObservingNetwork]
        }
        if !actions.isEmpty { actions.insert(.log(ClientLogRecord(.info, "closed by the application")), at: 0) }
        phase = .closed
        return actions + [.terminate] + failQueuedSends()
    }

    static func firstWait(now: Duration) -> Waiting {
        Waiting(deadline: nil, timer: nil, booking: .booked, admission: .done, retryAt: now)
    }
}

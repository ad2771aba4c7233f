@_spi(Transport) import RealtimeCore
extension ClientStorage {
    /// What the driver does after releasing the client's lock: the machine's effects, and the
    /// objects they act on, taken from the storage under the lock in ``State/absorb(_:into:)``
    /// (the one place that maps the machine's requests to the driver's objects).
    struct Work {
        /// The machine's actions in order, the emissions removed (they are buffered under the
        /// lock).
        var actions: [ClientStateMachine.Action] = []
        /// The live transport, when ``effects`` has a transport command.
        var transport: (any Transport)?
        /// What to cancel: the disarmed timer, preparation work, the outbox's disarmed expiry.
        var cancelled: [ClientTimer] = []
        var observation: (monitor: any NetworkMonitor, observation: NetworkObservation)?
        /// The outbox's expiry arming this work belongs to (see ``ClientSends/expiryGeneration``).
        var expiryGeneration: UInt64 = 0
        /// Senders to return to (error nil: sent).
        var senders: [(CheckedContinuation<Void, any Error>, RealtimeError?)] = []
        /// The consumer, waiting for what this step buffered or for the end.
        var consumerWaiter: CheckedContinuation<Void, Never>?
        /// Envelopes the step dropped (the stream was terminated), released after the lock.
        var dropped: [Envelope] = []
        /// The relay's answer to its transport: false when the buffer is full (see
        /// ``ClientStorage/producerMayContinue(_:)``).
        var mayContinue = true
        /// Iterators of `stateChanges` to wake: the state changed.
        var stateWaiters: [CheckedContinuation<Void, Never>] = []
        /// The on-open hook, waiting for a message of its handshake or for its end.
        var hookWaiter: CheckedContinuation<Void, Never>?
    }
}

extension ClientStorage.State {
    /// Records one step of the machine under the lock: buffers its emissions for the
    /// consumer and takes the objects its actions act on. A stale event
    /// (``ClientStateMachine/Effects/ignored``) has nothing to record.
    mutating func absorb(_ step: ClientStateMachine.Effects, into out: inout ClientStorage.Work) {
        guard step.ignored == nil else { return }
        let terminates = step.terminate
        for action in step.actions {
            switch action {
            case .emit(let e):
                // A user close drops what the same step emitted, with the rest of the buffer.
                if !terminates { wake(buffer.push(ClientStorage.Envelope(event: e.event, sequence: e.sequence)), &out) }
            case .finish:
                wake(buffer.finish(), &out)
            case .terminate:
                let (waiter, dropped) = buffer.terminate()
                wake(waiter, &out)
                out.dropped += dropped
                out.hookWaiter = handshake.end().waiter ?? out.hookWaiter
            case .openHook(let attempt, _, _, _):
                out.hookWaiter = handshake.begin(attempt: attempt) ?? out.hookWaiter
            case .cancelTimer:
                if let t = timer { out.cancelled.append(t.timer) }
                timer = nil
            case .cancelWork:
                out.cancelled += work.values.map { .task($0) }
                work = [:]
            case .transport(let command):
                out.transport = transport?.transport
                if command == .close, machine.isTerminal { transport = nil }
            case .stopObservingNetwork:
                out.observation = observation ?? out.observation
                observation = nil
            case .sendExpiry(let change):
                if let task = disarmSendExpiry() { out.cancelled.append(task) }
                if case .arm = change { out.expiryGeneration = sends.expiryGeneration }
            case .resolveSends(let resolutions):
                out.senders += sends.take(resolutions)
            case .log, .loadCursor, .connect, .startTimer, .budget, .awaitConsumer, .drainSends:
                break
            }
            if case .emit = action { continue }
            out.actions.append(action)
        }
    }

    /// Notes the consumer to resume after the lock, when a buffer step woke it.
    func wake(_ waiter: CheckedContinuation<Void, Never>?, _ work: inout ClientStorage.Work) {
        if let waiter { work.consumerWaiter = waiter }
    }

    /// After the machine ran: publishes a state change.
    mutating func conclude(_ work: inout ClientStorage.Work) {
        let snapshot = machine.snapshot
        guard snapshot != published else { return }
        published = snapshot
        publishedVersion &+= 1
        if !stateWaiters.isEmpty {
            work.stateWaiters = Array(stateWaiters.values)
            stateWaiters = [:]
        }
    }

    /// Makes any armed expiry task stale and returns it for cancelling.
    private mutating func disarmSendExpiry() -> ClientTimer? {
        sends.expiryGeneration &+= 1
        defer { sends.expiry = nil }
        return sends.expiry
    }
}

extension ClientStorage {
    /// What the driver does after releasing the client's lock: the machine's effects, and the
    /// objects they act on, taken from the storage under the lock in ``State/absorb(_:into:)``
    /// (the one place that maps the machine's requests to the driver's objects).
    struct Work {
        /// The machine's requests, emissions and stale reasons removed (the emissions are
        /// buffered under the lock).
        var effects = ClientStateMachine.Effects()
        /// The live transport, when ``effects`` has a transport command.
        var transport: (any Transport)?
        /// Tasks to cancel: the disarmed timer, preparation work, the outbox's disarmed expiry.
        var cancelled: [Task<Void, Never>] = []
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
    /// consumer and takes the objects its requests act on. A stale event
    /// (``ClientStateMachine/Effects/ignored``) has nothing to record.
    mutating func absorb(_ step: ClientStateMachine.Effects, into out: inout ClientStorage.Work) {
        guard step.ignored == nil else { return }
        var step = step
        if !step.terminate {
            for e in step.emissions { wake(buffer.push(ClientStorage.Envelope(event: e.event, sequence: e.sequence)), &out) }
        }
        step.emissions = []
        if step.finish { wake(buffer.finish(), &out) }
        if step.terminate {
            let (waiter, dropped) = buffer.terminate()
            wake(waiter, &out)
            out.dropped += dropped
            out.hookWaiter = handshake.end().waiter ?? out.hookWaiter
        }
        if let hook = step.openHook { out.hookWaiter = handshake.begin(attempt: hook.attempt) ?? out.hookWaiter }
        if step.cancelTimer, let t = timer {
            out.cancelled.append(t.task)
            timer = nil
        }
        if step.cancelWork {
            out.cancelled += work.values
            work = [:]
        }
        if step.transport != nil {
            out.transport = transport?.transport
            if step.transport == .close, machine.isTerminal { transport = nil }
        }
        if step.stopObservingNetwork, let o = observation {
            out.observation = o
            observation = nil
        }
        if let change = step.sendExpiry {
            if let task = disarmSendExpiry() { out.cancelled.append(task) }
            if case .arm = change { out.expiryGeneration = sends.expiryGeneration }
        }
        if !step.resolvedSends.isEmpty { out.senders += sends.take(step.resolvedSends) }
        out.effects += step
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
    private mutating func disarmSendExpiry() -> Task<Void, Never>? {
        sends.expiryGeneration &+= 1
        defer { sends.expiry = nil }
        return sends.expiry
    }
}

extension RealtimeClient {
    /// What one batch of an attempt's transport events carries, sorted out on the producer's
    /// thread before the lock is taken.
    struct RelayBatch {
        var messages: [ClientStorage.Envelope] = []
        var bytes = 0
        var opened: ConnectionInfo?
        var hints: [Duration] = []
        var end: TransportEnd?
        /// A message matched the configured terminator (it and what follows are dropped).
        var terminated = false

        var isMessagesOnly: Bool { opened == nil && hints.isEmpty && end == nil && !terminated }
    }

    /// The relay on an attempt's transport channel (see ``BoundedChannel/setRelay(_:)``), run
    /// on the transport's producer thread: takes every event out of `events`, moves the
    /// messages into the consumer's buffer and the control events into the state machine.
    /// Returns false when the consumer's buffer is full (the transport pauses reading).
    func relay(_ events: inout [TransportEvent], attempt: Int) -> Bool {
        var batch = RelayBatch()
        batch.messages.reserveCapacity(events.count)
        let messageID = transportKind == .webSocket ? configuration.messageID : nil
        let terminator = configuration.terminator
        for event in events {
            switch event {
            case .message(var message):
                guard !batch.terminated else { continue }
                if let terminator, terminator.matches(message) {
                    batch.terminated = true
                    continue
                }
                batch.bytes &+= message.payloadByteCount
                if let messageID { message.id = messageID(message) }
                batch.messages.append(ClientStorage.Envelope(event: .event(message), sequence: 0))
            case .opened(let info):
                batch.opened = info
            case .retryHint(let time):
                batch.hints.append(time)
            case .ended(let end):
                batch.end = end
            }
        }
        events.removeAll(keepingCapacity: true)
        if batch.isMessagesOnly { return relayMessages(&batch.messages, bytes: batch.bytes, attempt: attempt) }
        return relayControl(&batch, attempt: attempt)
    }

    /// The common case: messages only. Numbered under the lock; moved into the consumer's
    /// buffer by this thread when nobody else is emitting (the buffer takes the array's
    /// storage, no copy), else queued behind what is being emitted.
    private func relayMessages(_ envelopes: inout [ClientStorage.Envelope], bytes: Int, attempt: Int) -> Bool {
        guard !envelopes.isEmpty else { return true }
        let first: UInt64? = storage.state.withLock { s in
            guard let first = s.machine.messagesArrived(attempt: attempt, count: envelopes.count, bytes: bytes) else {
                return nil  // the attempt is over: dropped
            }
            // Queued events always have an emitter (whoever queues them takes the role when
            // it is free), so a free role means nothing is queued: go straight to the buffer.
            if !s.emitting {
                s.emitting = true
                return first
            }
            for i in envelopes.indices { envelopes[i].sequence = first + UInt64(i) }
            s.outbox.append(contentsOf: envelopes)
            return nil
        }
        guard let first else { return true }
        for i in envelopes.indices { envelopes[i].sequence = first + UInt64(i) }
        return storage.emit(&envelopes, finish: false)
    }

    /// A batch with control events (the open, retry hints, the terminator, the end): every
    /// part goes through the machine under one lock, in order.
    private func relayControl(_ batch: inout RelayBatch, attempt: Int) -> Bool {
        let now = clock.now()
        let effects: [ClientEffect] = storage.state.withLock { s in
            var effects: [ClientEffect] = []
            if let info = batch.opened {
                let actions = s.machine.transportOpened(attempt: attempt, info: info, now: now)
                s.absorb(actions, into: &effects)
            }
            if !batch.messages.isEmpty,
                let first = s.machine.messagesArrived(attempt: attempt, count: batch.messages.count, bytes: batch.bytes)
            {
                for i in batch.messages.indices { batch.messages[i].sequence = first + UInt64(i) }
                s.outbox.append(contentsOf: batch.messages)
            }
            for hint in batch.hints { s.machine.retryHint(attempt: attempt, hint) }
            if batch.terminated {
                let actions = s.machine.terminatorArrived(attempt: attempt, now: now)
                s.absorb(actions, into: &effects)
            }
            if let end = batch.end {
                if s.transport?.attempt == attempt { s.transport = nil }
                let actions = s.machine.transportEnded(attempt: attempt, end: end, now: now)
                s.absorb(actions, into: &effects)
            }
            s.conclude(&effects)
            return effects
        }
        return perform(effects)
    }
}

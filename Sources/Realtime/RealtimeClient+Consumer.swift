import Synchronization

extension RealtimeClient {
    /// Starts the client on the first iteration; returns whether this is the first.
    /// With `batches`, messages are delivered as batches from now on (the buffer's capacity
    /// then counts batches, see ``RealtimeClient/batches``).
    func startIfFirstIteration(batches: Bool = false) -> Bool {
        let first: Bool = storage.state.withLock { s in
            defer { s.started = true }
            return !s.started
        }
        guard first else { return false }
        if batches {
            storage.deliversBatches.store(true, ordering: .sequentiallyConsistent)
            storage.channel.setCapacity(Self.batchBufferCapacity(eventBufferCapacity: configuration.eventBufferCapacity))
        }
        let status = startObservingNetwork()
        handle { machine, now in machine.start(network: status, now: now) }
        return true
    }

    @usableFromInline
    func consumerNext() async -> ClientEvent? {
        // One turn per dropped duplicate (``Configuration/duplicates``); each takes an event
        // out of the buffer, so the loop ends with the events.
        while true {
            if let (event, saved) = consumerPoll() {
                if let saved { await save(saved) }
                return event
            }
            await commitProcessed()
            guard let envelope = await storage.channel.next() else { return nil }
            let admitted = storage.consumer.withLock { ledger in
                guard ledger.admit(envelope) else { return false }
                ledger.deliver(envelope.sequence, id: envelope.resumeID)
                return true
            }
            if admitted { return Self.materialized(envelope.event) }
        }
    }

    /// The consumer's fast path, with no suspension point: the next event when one is
    /// buffered (committing the previous one and recording this one under one lock), plus
    /// a changed cursor the caller must save. nil when the consumer would have to wait.
    @usableFromInline
    func consumerPoll() -> (ClientEvent, saved: String?)? {
        var saved: String?
        while let envelope = storage.channel.poll() {
            let admitted: Bool = storage.consumer.withLock { ledger in
                saved = ledger.commit() ?? saved
                guard ledger.admit(envelope) else { return false }
                ledger.deliver(envelope.sequence, id: envelope.resumeID)
                return true
            }
            guard admitted else { continue }  // a dropped duplicate
            return (Self.materialized(envelope.event), configuration.cursorStore == nil ? nil : saved)
        }
        // Only duplicates were buffered: a changed cursor is saved when the consumer waits.
        if let saved { storage.consumer.withLock { $0.unsaved = saved } }
        return nil
    }

    @usableFromInline
    func save(_ cursor: String) async {
        if let store = configuration.cursorStore { await store.save(cursor) }
    }

    /// Everything handed to the consumer is processed: commits the cursor (and saves it),
    /// and tells the machine when a reconnect waits for the consumer to catch up.
    func commitProcessed(always: Bool = false) async {
        let saved: String? = storage.consumer.withLock { ledger in
            defer { ledger.unsaved = nil }
            return ledger.commit() ?? ledger.unsaved
        }
        if always || storage.consumerAwaited.load(ordering: .sequentiallyConsistent) { reportConsumerProgress() }
        if let saved { await save(saved) }
    }

    /// Hands the consumer's progress to the machine (it may let the next attempt go).
    func reportConsumerProgress() {
        let progress = storage.consumer.withLock { $0.progress }
        let now = clock.now()
        let work: ClientStorage.Work? = storage.state.withLock { s in
            let effects = s.machine.consumerProcessed(progress, now: now)
            guard effects.ignored == nil, !effects.isEmpty else { return nil }
            var work = ClientStorage.Work()
            s.absorb(effects, into: &work)
            s.conclude(&work)
            return work
        }
        if let work { perform(work) }
    }

    /// An SSE event's text is built here, on the consumer's thread, from the bytes the I/O
    /// thread copied (see `SSEDataArena`): the allocation and its release stay on one thread.
    private static func materialized(_ event: ClientEvent) -> ClientEvent {
        guard case .event(var message) = event else { return event }
        message.materialize()
        return .event(message)
    }
}

extension ClientStorage.Envelope {
    /// The event, for the per-event consumer (which never receives batches: they exist only
    /// when the first iterator was `batches`, and then no `events` iterator gets any).
    var event: ClientEvent {
        switch item {
        case .event(let e): return e
        case .batch: preconditionFailure("a batch reached the per-event consumer")
        }
    }
}

extension ResumeLedger {
    /// ``admit(_:id:opensConnection:)`` for an envelope of the per-event consumer.
    mutating func admit(_ envelope: ClientStorage.Envelope) -> Bool {
        switch envelope.item {
        case .event(.event(let m)): return admit(envelope.sequence, id: m.id, opensConnection: false)
        case .event(.open): return admit(envelope.sequence, id: nil, opensConnection: true)
        case .event, .batch: return true
        }
    }
}

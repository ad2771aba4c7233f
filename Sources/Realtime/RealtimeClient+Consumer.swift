import Synchronization
@_spi(Transport) import RealtimeCore

extension RealtimeClient {
    /// Starts the client on the first iteration; returns whether this is the first.
    /// With `batches`, messages are delivered as batches from now on (the buffer's capacity
    /// then counts batches, see ``RealtimeClient/batches``). A `terminator` given replaces
    /// the configuration's (an LLM decoder's end marker, see ``RealtimeClient/deltas(format:)``).
    func startIfFirstIteration(batches: Bool = false, terminator: StreamTerminator?? = nil) -> Bool {
        let first: Bool = storage.state.withLock { s in
            defer { s.started = true }
            return !s.started
        }
        guard first else { return false }
        if let terminator { storage.setTerminator(terminator) }
        if batches {
            storage.deliversBatches.store(true, ordering: .sequentiallyConsistent)
            storage.setCapacity(Self.batchBufferCapacity(eventBufferCapacity: configuration.eventBufferCapacity))
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
            guard let (event, envelope) = await nextEnvelope(storage.serveEvent) else { return nil }
            let admitted = storage.consumer.withLock { c in
                guard c.ledger.admit(envelope) else { return false }
                c.ledger.deliver(envelope.sequence, id: envelope.resumeID)
                return true
            }
            if admitted { return Self.materialized(event) }
        }
    }

    /// The consumer's fast path, with no suspension point: the next event when one is
    /// buffered (taking it, committing the previous one and recording this one under one
    /// lock), plus a changed cursor the caller must save. nil when the consumer would have
    /// to wait, the stream is over or the task is cancelled (``consumerNext()`` tells which).
    @usableFromInline
    func consumerPoll() -> (ClientEvent, saved: String?)? {
        if Task.isCancelled { return nil }
        var saved: String?
        var resume: (any Transport)?
        defer { resume?.resumeDelivery() }
        // Taken, committed, admitted and recorded in one acquisition of the consumer lock; the
        // event goes out as it is (an envelope is large: each move of one is a `memcpy`).
        let event: ClientEvent? = storage.consumer.withLock { c in
            while let (event, envelope) = storage.serveEvent(&c, resume: &resume) {
                saved = c.ledger.commit() ?? saved
                guard c.ledger.admit(envelope) else { continue }  // a dropped duplicate
                c.ledger.deliver(envelope.sequence, id: envelope.resumeID)
                return event
            }
            return nil
        }
        if let event { return (Self.materialized(event), configuration.cursorStore == nil ? nil : saved) }
        // Only duplicates were buffered: a changed cursor is saved when the consumer waits.
        if let saved { storage.consumer.withLock { $0.ledger.unsaved = saved } }
        return nil
    }

    /// The next envelope (as `serve` takes it from the consumer's side), waiting for one when
    /// the buffer is empty; nil at the end of the stream or when the consumer's task is
    /// cancelled (which ends the stream and closes the client).
    func nextEnvelope<Served>(
        _ serve: (inout ClientStorage.ConsumerSide, inout (any Transport)?) -> Served?
    ) async -> Served? {
        while !Task.isCancelled {
            var resume: (any Transport)?
            var ended = false
            let envelope = storage.consumer.withLock { c in
                defer { ended = c.ended }
                return serve(&c, &resume)
            }
            resume?.resumeDelivery()
            if let envelope { return envelope }
            if ended { return nil }
            await storage.waitForEnvelopes()
        }
        storage.terminateConsumer()
        close()
        return nil
    }

    @usableFromInline
    func save(_ cursor: String) async {
        guard let store = configuration.cursorStore else { return }
        do {
            try await store.save(cursor)
        } catch {
            // Not retried by itself (a store that keeps failing would be asked again for every
            // event, this report included): the next processed event saves the newest cursor.
            let failure = RealtimeError(.cursorSaveFailed, detail: "the cursor store's save threw \(type(of: error))")
            handle { machine, _ in machine.cursorSaveFailed(failure) }
        }
    }

    /// Everything handed to the consumer is processed: commits the cursor (and saves it),
    /// and tells the machine when a reconnect waits for the consumer to catch up.
    func commitProcessed(always: Bool = false) async {
        let saved: String? = storage.consumer.withLock { c in
            defer { c.ledger.unsaved = nil }
            return c.ledger.commit() ?? c.ledger.unsaved
        }
        if always || storage.consumerAwaited.load(ordering: .sequentiallyConsistent) { reportConsumerProgress() }
        if let saved { await save(saved) }
    }

    /// Hands the consumer's progress to the machine (it may let the next attempt go).
    func reportConsumerProgress() {
        let progress = storage.consumer.withLock { $0.ledger.progress }
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

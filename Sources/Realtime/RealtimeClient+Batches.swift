@_spi(Transport) import RealtimeCore
extension RealtimeClient {
    /// The client's events with messages in batches: every message that arrived in one
    /// wake-up of the I/O thread in one ``MessageBatch``, and `open`, `error` and `closed`
    /// in order between batches. Iterate once, instead of ``events`` (see below).
    ///
    /// For SSE an event costs no allocation of its own: its data stays in the batch's block
    /// of bytes until read (``BatchedMessage/withUnsafeBytes(_:)``, or ``BatchedMessage/text``
    /// to build its `String`). A WebSocket client (or SSE with a
    /// ``Configuration/terminator``) groups its ``Message``s the same way, at most 16 per
    /// batch, without the packing.
    ///
    /// ```swift
    /// for await item in client.batches {
    ///     guard case .messages(let batch) = item else { continue }
    ///     for message in batch {
    ///         message.withUnsafeBytes { bytes in store(bytes, id: message.id) }
    ///     }
    /// }
    /// ```
    ///
    /// **Resuming exactly.** The same rule as ``events``, per batch: a batch counts as
    /// processed (all its messages) when the loop asks for the next item, or after
    /// ``acknowledge()``; the cursor is then the id of the batch's last message. Leaving the
    /// loop does not count the current batch as processed.
    ///
    /// **Back-pressure.** The buffer (``Configuration/eventBufferCapacity``) then counts
    /// batches: it holds `eventBufferCapacity / 16` of them (at least 2), each with at most
    /// `eventBufferCapacity` events (at least 16) and 32 KiB of data (or one larger event
    /// alone); when it is full the transport stops reading, as for ``events``.
    ///
    /// **One consumer.** A client has one stream: the first iterator of ``events`` or
    /// ``batches`` (or `consume(_:)`) gets it; every later iterator of either ends at
    /// once, yielding nothing.
    public var batches: Batches { Batches(client: self) }

    /// See ``RealtimeClient/batches``.
    public struct Batches: AsyncSequence, Sendable {
        let client: RealtimeClient

        public func makeAsyncIterator() -> AsyncIterator {
            let first = client.startIfFirstIteration(batches: true)
            return AsyncIterator(client: client, lifetime: first ? IteratorLifetime(client: client) : nil)
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Each element is one batch of events.
            let client: RealtimeClient
            /// Closes the client when the last copy of the first iterator goes away.
            let lifetime: IteratorLifetime?

            /// The next item. Asking for it marks the previous one as processed.
            public mutating func next() async -> ClientBatchEvent? {
                guard lifetime != nil else { return nil }
                return await client.batchConsumerNext()
            }

            /// What `for await` calls: a buffered item is served on the caller's own executor.
            public mutating func next(isolation actor: isolated (any Actor)?) async -> ClientBatchEvent? {
                guard lifetime != nil else { return nil }
                if let (item, saved) = client.batchConsumerPoll() {
                    if let saved { await client.save(saved) }
                    return item
                }
                return await client.batchConsumerNext()
            }
        }
    }

    /// Capacity of the consumer's buffer, in batches, when messages come in batches.
    static func batchBufferCapacity(eventBufferCapacity: Int) -> Int {
        max(2, eventBufferCapacity / 16)
    }

    /// Messages a batch of whole ``Message``s holds at most.
    static let messagesPerGroupedBatch = 16

    func batchConsumerNext() async -> ClientBatchEvent? {
        if let (item, saved) = batchConsumerPoll() {
            if let saved { await save(saved) }
            return item
        }
        await commitProcessed()
        guard let envelope = await nextEnvelope(storage.serve) else { return nil }
        storage.consumer.withLock { $0.ledger.deliver(envelope.sequence, id: envelope.resumeID) }
        return envelope.batchEvent
    }

    /// The next item when one is buffered (taking it, committing the previous one and
    /// recording this one under one lock), plus a changed cursor the caller must save; nil
    /// to wait.
    func batchConsumerPoll() -> (ClientBatchEvent, saved: String?)? {
        if Task.isCancelled { return nil }
        var resume: (any Transport)?
        defer { resume?.resumeDelivery() }
        let taken: (ClientBatchEvent, String?)? = storage.consumer.withLock { c in
            guard let envelope = storage.serve(&c, resume: &resume) else { return nil }
            defer { c.ledger.deliver(envelope.sequence, id: envelope.resumeID) }
            return (envelope.batchEvent, c.ledger.commit())
        }
        guard let (item, saved) = taken else { return nil }
        return (item, configuration.cursorStore == nil ? nil : saved)
    }
}

extension ClientStorage.Envelope {
    /// The item as `batches` yields it (a lone message, which only a batch consumer that
    /// came first could see, as a batch of one).
    var batchEvent: ClientBatchEvent {
        switch item {
        case .batch(let b): return .messages(b)
        case .event(.event(let m)): return .messages(MessageBatch([m]))
        case .event(.open(let info)): return .open(info)
        case .event(.error(let e)): return .error(e)
        case .event(.closed(let c)): return .closed(c)
        }
    }
}

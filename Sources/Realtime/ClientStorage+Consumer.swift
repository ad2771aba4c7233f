@_spi(Transport) import RealtimeCore
extension ClientStorage {
    /// The consumer's next envelope, under the consumer lock: from its hand, or (when the hand
    /// is empty) everything buffered, taken under the machine's lock in one acquisition. nil
    /// when nothing is buffered, or at the end (then ``ConsumerSide/ended`` is set). `resume`
    /// is set to the transport to tell to read again, after both locks are released
    /// (`Transport.resumeDelivery()`). Inlined into the consumer's step: an envelope is
    /// large, and each move of one through a return is a `memcpy`.
    @inline(__always)
    func serve(_ c: inout ConsumerSide, resume: inout (any Transport)?) -> Envelope? {
        if c.hand.isEmpty {
            refill(&c, resume: &resume)
            if c.hand.isEmpty { return nil }
        }
        let envelope = c.hand.removeLast()
        let held = c.hand.count
        // Report progress only when it can release a paused transport.
        if held <= c.capacity / 2, producerPaused.load(ordering: .relaxed) {
            resume = state.withLock { s in releasedTransport(&s, s.buffer.report(held: held)) } ?? resume
        }
        return envelope
    }

    /// ``serve(_:resume:)`` for the per-event consumer: the next event with its envelope. A
    /// batch is made only for ``RealtimeClient/batches`` (the first iterator decides, and a
    /// per-event iterator after it gets nothing); should one reach this consumer all the same,
    /// it is taken apart into its messages, in order, each under its own sequence number.
    @inline(__always)
    func serveEvent(_ c: inout ConsumerSide, resume: inout (any Transport)?) -> (ClientEvent, Envelope)? {
        while let envelope = serve(&c, resume: &resume) {
            switch envelope.item {
            case .event(let event): return (event, envelope)
            case .batch(let batch): c.hand.append(contentsOf: Envelope.unbatched(batch, last: envelope.sequence).reversed())
            }
        }
        return nil
    }

    /// Moves everything buffered into the consumer's empty hand, oldest last.
    private func refill(_ c: inout ConsumerSide, resume: inout (any Transport)?) {
        let take: BoundedBuffer<Envelope, CheckedContinuation<Void, Never>>.Take = state.withLock { s in
            let (take, go) = s.buffer.take(into: &c.hand)
            resume = releasedTransport(&s, go)
            return take
        }
        switch take {
        case .elements: c.hand.reverse()
        case .empty: break
        case .end: c.ended = true
        }
    }

    /// The live transport when the buffer released the paused producer (`released`); keeps
    /// ``producerPaused`` in step with the buffer.
    private func releasedTransport(_ s: inout State, _ released: Bool) -> (any Transport)? {
        producerPaused.store(s.buffer.paused, ordering: .relaxed)
        return released ? s.transport?.transport : nil
    }

    /// After a producer's pushes, under the machine's lock: whether it may read on (false:
    /// the buffer is full, the transport pauses until the consumer releases it).
    func producerMayContinue(_ s: inout State) -> Bool {
        guard !s.buffer.producerMayContinue() else { return true }
        producerPaused.store(true, ordering: .relaxed)
        return false
    }

    /// Suspends the consumer until the buffer has an envelope or has ended. Its hand is
    /// empty (it waits only when ``serve(_:resume:)`` found nothing). Cancelling the task
    /// ends the consumer's stream (``terminateConsumer()``), which resumes the wait.
    func waitForEnvelopes() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                state.withLock { $0.buffer.wait(waiter) }?.resume()
            }
        } onCancel: {
            terminateConsumer()
        }
    }

    /// Ends the consumer's stream at once (its task was cancelled): the buffer and the
    /// consumer's hand are dropped, a waiting consumer is resumed, and it gets the end.
    func terminateConsumer() {
        // The dropped envelopes are released here, after the lock.
        let waiter = state.withLock { s in
            defer { producerPaused.store(false, ordering: .relaxed) }
            return s.buffer.terminate()
        }.waiter
        dropHand()
        waiter?.resume()
    }

    /// Drops what the consumer took and has not served (the stream was terminated); the
    /// envelopes are released after the lock.
    func dropHand() {
        var hand: [Envelope] = []
        consumer.withLock { c in swap(&hand, &c.hand) }
    }
}

/// The I/O side of ``LLMReplies``: one `GenerationGate` of ``LLMReplyBatch``es, the current
/// generation's client and pipeline task, and the consumer's and producer's continuations.
/// Continuations are resumed, clients closed and tasks cancelled outside the lock.
final class LLMReplyDriver: Sendable {
    private struct Current {
        var generation: Int
        var client: RealtimeClient
        var task: Task<Void, Never>?
    }

    private struct State {
        var gate: GenerationGate<LLMReplyBatch>
        var current: Current?
        var consumer: CheckedContinuation<LLMReplyBatch?, Never>?
        var producer: CheckedContinuation<Void, Never>?
    }

    /// What to stop outside the lock when a generation ends early.
    private struct Stop {
        var current: Current?
        var producer: CheckedContinuation<Void, Never>?
        var consumer: CheckedContinuation<LLMReplyBatch?, Never>?

        func perform() {
            current?.client.close()
            current?.task?.cancel()
            producer?.resume()
            consumer?.resume(returning: nil)
        }
    }

    private let state: LockedValue<State>
    let interval: Duration
    let clock: CoalescingClock

    /// Batches a slow consumer has not taken yet, per reply: the pipeline then stops
    /// reading, and deltas gather (merged) in the coalescer instead.
    static let queueCapacity = 2

    init(interval: Duration, clock: CoalescingClock) {
        self.state = LockedValue(State(gate: GenerationGate(capacity: Self.queueCapacity)))
        self.interval = interval
        self.clock = clock
    }

    var generation: Int { state.withLock { $0.gate.current } }

    // MARK: Generations

    func start<Decoder: LLMStreamDecoder>(_ client: RealtimeClient, format: Decoder) -> Int {
        let begun: (Int, Stop)? = state.withLock { s in
            guard !s.gate.isClosed else { return nil }
            let action = s.gate.begin()
            var stop = Stop(current: s.current.take())
            if action.resumeProducer { stop.producer = s.producer.take() }
            s.current = Current(generation: action.generation, client: client)
            return (action.generation, stop)
        }
        guard let (generation, stop) = begun else {
            client.close()
            return state.withLock { $0.gate.current }
        }
        stop.perform()
        let task = Task { await self.run(generation: generation, client: client, format: format) }
        let superseded: Bool = state.withLock { s in
            guard s.current?.generation == generation else { return true }
            s.current?.task = task
            return false
        }
        if superseded { task.cancel() }
        return generation
    }

    func cancel() {
        let stop: Stop = state.withLock { s in
            let action = s.gate.cancel()
            var stop = Stop(current: s.current.take())
            if action.resumeProducer { stop.producer = s.producer.take() }
            return stop
        }
        stop.perform()
    }

    func close() {
        let stop: Stop = state.withLock { s in
            let action = s.gate.close()
            var stop = Stop(current: s.current.take())
            if action.resumeProducer { stop.producer = s.producer.take() }
            if action.finishConsumer { stop.consumer = s.consumer.take() }
            return stop
        }
        stop.perform()
    }

    // MARK: Pipeline

    /// One reply: deltas, coalesced, applied to a transcript, offered batch by batch.
    private func run<Decoder: LLMStreamDecoder>(generation: Int, client: RealtimeClient, format: Decoder) async {
        var transcript = LLMTranscript()
        let batches = CoalescedSequence(
            base: client.deltas(format: format), interval: interval, maxPending: 1024, clock: clock, merge: LLMDelta.merge)
        for await deltas in batches {
            let completed = transcript.apply(contentsOf: deltas)
            let batch = LLMReplyBatch(
                generation: generation, deltas: deltas, completedToolCalls: completed, transcript: transcript, isLast: false)
            guard await offer(batch) else { return }
            // Over the transcript's limit: the reply ends here (the batches' loop then ends).
            if transcript.error != nil { client.close() }
        }
        let last = LLMReplyBatch(generation: generation, deltas: [], completedToolCalls: [], transcript: transcript, isLast: true)
        _ = await offer(last)
        state.withLock { s in
            if s.current?.generation == generation { s.current = nil }
        }
    }

    /// Offers a batch to the gate, waiting for room when the consumer lags; false when the
    /// generation is no longer current (the pipeline stops).
    private func offer(_ batch: LLMReplyBatch) async -> Bool {
        while true {
            var consumer: CheckedContinuation<LLMReplyBatch?, Never>?
            let action = state.withLock { s in
                let action = s.gate.offer(batch, generation: batch.generation)
                if case .deliver = action { consumer = s.consumer.take() }
                return action
            }
            switch action {
            case .rejected:
                return false
            case .deliver(_, let payload):
                consumer?.resume(returning: payload)
                return true
            case .enqueued:
                return true
            case .wait:
                await waitForRoom()
            }
        }
    }

    private func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting: Bool = state.withLock { s in
                guard s.gate.isProducerWaiting else { return false }
                s.producer = continuation
                return true
            }
            if !waiting { continuation.resume() }
        }
    }

    // MARK: Consumer

    func next() async -> LLMReplyBatch? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LLMReplyBatch?, Never>) in
                var producer: CheckedContinuation<Void, Never>?
                let immediate: LLMReplyBatch?? = state.withLock { s in
                    if Task.isCancelled { return .some(nil) }
                    switch s.gate.next() {
                    case .deliver(_, let batch, let resumeProducer):
                        if resumeProducer { producer = s.producer.take() }
                        return .some(batch)
                    case .suspend:
                        s.consumer = continuation
                        return nil
                    case .finish:
                        return .some(nil)
                    }
                }
                producer?.resume()
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let consumer: CheckedContinuation<LLMReplyBatch?, Never>? = state.withLock { s in
                guard let consumer = s.consumer.take() else { return nil }
                s.gate.consumerCancelled()
                return consumer
            }
            consumer?.resume(returning: nil)
        }
    }
}

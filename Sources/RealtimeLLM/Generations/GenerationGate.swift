/// The decisions of an owner of "the current reply" (`LLMReplies`), as a pure state
/// machine: replies are numbered generations, a new one supersedes the old, and only the
/// current generation's payloads reach the single consumer.
///
/// - `begin()` starts generation n+1: payloads of older generations still queued are
///   discarded, and their producers' later offers are rejected, so nothing of an old reply
///   is delivered once the new one has started.
/// - A producer offers payloads stamped with its generation; the consumer takes them in
///   order. At most `capacity` wait: a producer that finds the queue full waits for room
///   (and is released, to be rejected, when its generation is superseded or cancelled).
package struct GenerationGate<Payload> {
    /// The generation last begun (0 before the first).
    package private(set) var current = 0
    /// Whether the current generation may still deliver (not cancelled, gate not closed).
    package private(set) var isActive = false
    package private(set) var isClosed = false
    package let capacity: Int
    private var queue: [Payload] = []
    private var queueHead = 0
    private var consumerWaiting = false
    private var producerWaiting = false

    package init(capacity: Int) {
        precondition(capacity >= 1, "the capacity must be at least 1")
        self.capacity = capacity
    }

    /// Payloads waiting for the consumer (all of the current generation).
    package var queuedCount: Int { queue.count - queueHead }

    /// Whether the current generation's producer was told to wait for room and has not
    /// been released yet.
    package var isProducerWaiting: Bool { producerWaiting }

    package struct SupersedeAction {
        /// The new generation's number (for `begin()`; the current one for `cancel()`).
        package var generation: Int
        /// Queued payloads of the old generation that were discarded.
        package var discarded: Int
        /// A producer of the old generation waits for room: resume it (its offer is then
        /// rejected).
        package var resumeProducer: Bool
    }

    /// Starts a new generation; the previous one (if any) is superseded.
    package mutating func begin() -> SupersedeAction {
        precondition(!isClosed, "begin() after close()")
        var action = stopCurrent()
        current += 1
        isActive = true
        action.generation = current
        return action
    }

    /// Stops the current generation: what it queued is discarded, its offers are rejected.
    package mutating func cancel() -> SupersedeAction {
        stopCurrent()
    }

    package enum OfferAction {
        /// Not the current generation (or cancelled, or closed): drop the payload and stop.
        case rejected
        /// The consumer waits: resume it with this payload.
        case deliver(generation: Int, Payload)
        case enqueued
        /// The queue is full: wait for room, then offer again.
        case wait
    }

    package mutating func offer(_ payload: Payload, generation: Int) -> OfferAction {
        guard isActive, generation == current else { return .rejected }
        if consumerWaiting {
            precondition(queuedCount == 0, "a waiting consumer with a non-empty queue")
            consumerWaiting = false
            return .deliver(generation: generation, payload)
        }
        guard queuedCount < capacity else {
            precondition(!producerWaiting, "two producers of one generation wait for room")
            producerWaiting = true
            return .wait
        }
        queue.append(payload)
        return .enqueued
    }

    package enum NextAction {
        /// Return this payload; resume the producer waiting for room when `resumeProducer`.
        case deliver(generation: Int, Payload, resumeProducer: Bool)
        case suspend
        /// The gate is closed: the end.
        case finish
    }

    package mutating func next() -> NextAction {
        precondition(!consumerWaiting, "next() while another next() is waiting")
        if queuedCount > 0 {
            let payload = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            let resume = producerWaiting
            producerWaiting = false
            return .deliver(generation: current, payload, resumeProducer: resume)
        }
        if isClosed { return .finish }
        consumerWaiting = true
        return .suspend
    }

    /// The waiting consumer went away (its task was cancelled).
    package mutating func consumerCancelled() {
        consumerWaiting = false
    }

    package struct CloseAction {
        /// Resume the waiting consumer with the end.
        package var finishConsumer: Bool
        /// Resume the producer waiting for room (its offer is then rejected).
        package var resumeProducer: Bool
    }

    /// No generation may start or deliver any more; the consumer sees the end.
    package mutating func close() -> CloseAction {
        guard !isClosed else { return CloseAction(finishConsumer: false, resumeProducer: false) }
        let stopped = stopCurrent()
        isClosed = true
        let finish = consumerWaiting
        consumerWaiting = false
        return CloseAction(finishConsumer: finish, resumeProducer: stopped.resumeProducer)
    }

    private mutating func stopCurrent() -> SupersedeAction {
        let action = SupersedeAction(generation: current, discarded: queuedCount, resumeProducer: producerWaiting)
        queue.removeAll()
        queueHead = 0
        producerWaiting = false
        isActive = false
        return action
    }
}

/// A bounded queue between one producer that may wait (an async task reading a connection) and
/// one consumer (the application's iterator): the `BoundedBuffer` machine under a lock, with the
/// producer's and the consumer's continuations. The Socket.IO client's events and each GraphQL
/// subscription's results wait here.
///
/// **Bound.** ``push(_:)`` returns once the element is queued, except when the queue then
/// holds `capacity` elements: it then waits until the consumer has taken it down to half, so
/// the producer stops reading its connection (and TCP slows the server) instead of anything
/// being dropped.
///
/// **End.** ``finish(throwing:)`` ends the sequence after what is queued, normally or with an
/// error, thrown once; ``cancel()`` ends it at once and drops what is queued. Either releases a
/// waiting producer.
///
/// **Cancellation.** A consumer whose task is cancelled gets what is already queued, and nil
/// where it would wait; the queue stays open, and what arrives later is served to the next
/// call.
package final class AsyncBoundedQueue<Element: Sendable, Failure: Error>: Sendable {
    private typealias Waiter = CheckedContinuation<Void, Never>

    private struct State: @unchecked Sendable {
        var buffer: BoundedBuffer<Element, Waiter>
        /// What the consumer took from the buffer and has not served yet, oldest first.
        var hand: [Element] = []
        var served = 0
        /// The producer, waiting for the consumer to make room.
        var producer: Waiter?
        /// The error the sequence ends with, until it is thrown.
        var failure: Failure?
        /// Tests waiting for the producer to wait (``untilTheProducerWaits()``).
        var watchers: [Waiter] = []

        mutating func takeProducer() -> Waiter? {
            defer { producer = nil }
            return producer
        }
    }

    private enum Step {
        case element(Element)
        case end(Failure?)
        case wait
    }

    private let state: LockedValue<State>

    package init(capacity: Int) {
        precondition(capacity > 0, "AsyncBoundedQueue capacity must be positive")
        state = LockedValue(State(buffer: BoundedBuffer(capacity: capacity)))
    }

    /// Elements queued and not yet served.
    package var count: Int { state.withLock { $0.buffer.elements.count + $0.hand.count - $0.served } }

    /// Queues `element`, then waits while the queue is full. False when the sequence is over
    /// (the element is dropped: nobody will read it).
    @discardableResult
    package func push(_ element: Element) async -> Bool {
        let (queued, consumer, full) = state.withLock { s -> (Bool, Waiter?, Bool) in
            guard s.buffer.phase == .open else { return (false, nil, false) }
            let consumer = s.buffer.push(element)
            return (true, consumer, !s.buffer.producerMayContinue())
        }
        consumer?.resume()
        guard full else { return queued }
        await withCheckedContinuation { (producer: Waiter) in
            let (parked, watchers) = state.withLock { s -> (Bool, [Waiter]) in
                guard s.buffer.paused, s.buffer.phase == .open else { return (false, []) }
                precondition(s.producer == nil, "AsyncBoundedQueue has one producer")
                s.producer = producer
                defer { s.watchers = [] }
                return (true, s.watchers)
            }
            for watcher in watchers { watcher.resume() }
            if !parked { producer.resume() }
        }
        return true
    }

    /// The next element; nil at the end, or when the consumer's task is cancelled and nothing
    /// is queued.
    ///
    /// - Throws: the error given to ``finish(throwing:)``, after what was queued, once.
    package func next() async throws(Failure) -> Element? {
        while true {
            switch step() {
            case .element(let element): return element
            case .end(let failure?): throw failure
            case .end(nil): return nil
            case .wait: await waitForElement()
            }
        }
    }

    /// Under the lock: the next element (releasing the producer when the consumer is down to
    /// half), the end, or nothing yet.
    private func step() -> Step {
        let (step, producer) = state.withLock { s -> (Step, Waiter?) in
            if s.served < s.hand.count {
                let element = s.hand[s.served]
                s.served += 1
                let resume = s.buffer.report(held: s.hand.count - s.served)
                return (.element(element), resume ? s.takeProducer() : nil)
            }
            s.hand.removeAll(keepingCapacity: true)
            s.served = 0
            let (take, resume) = s.buffer.take(into: &s.hand)
            let producer = resume ? s.takeProducer() : nil
            switch take {
            case .elements:
                s.served = 1
                return (.element(s.hand[0]), producer)
            case .end:
                defer { s.failure = nil }
                return (.end(s.failure), producer)
            case .empty:
                if Task.isCancelled { return (.end(nil), producer) }
                return (.wait, producer)
            }
        }
        producer?.resume()
        return step
    }

    /// Waits for the next push or the end; returns at once when the task is cancelled.
    private func waitForElement() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (consumer: Waiter) in
                let parked = state.withLock { s -> Bool in
                    // Checked under the lock the cancellation handler takes: either it finds
                    // the consumer parked, or the consumer sees the cancellation here.
                    guard !Task.isCancelled, s.buffer.wait(consumer) == nil else { return false }
                    return true
                }
                if !parked { consumer.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { $0.buffer.takeWaiter() }
            waiting?.resume()
        }
    }

    /// Returns once the producer waits for room, or the sequence is over: the state a test of
    /// the bound waits for.
    package func untilTheProducerWaits() async {
        await withCheckedContinuation { (watcher: Waiter) in
            let now = state.withLock { s -> Bool in
                guard s.producer == nil, s.buffer.phase == .open else { return true }
                s.watchers.append(watcher)
                return false
            }
            if now { watcher.resume() }
        }
    }

    /// Ends the sequence after what is queued; `failure` is thrown once it is all served.
    /// Releases a waiting producer. A second end is ignored.
    package func finish(throwing failure: Failure? = nil) {
        let (consumer, producer, watchers) = state.withLock { s -> (Waiter?, Waiter?, [Waiter]) in
            guard s.buffer.phase == .open else { return (nil, nil, []) }
            s.failure = failure
            defer { s.watchers = [] }
            return (s.buffer.finish(), s.takeProducer(), s.watchers)
        }
        consumer?.resume()
        producer?.resume()
        for watcher in watchers { watcher.resume() }
    }

    /// Ends the sequence now and drops what is queued (the consumer stopped listening).
    package func cancel() {
        // The dropped elements are released here, outside the lock.
        let (waiters, _, _) = state.withLock { s -> ([Waiter], [Element], [Element]) in
            let (consumer, dropped) = s.buffer.terminate()
            var hand: [Element] = []
            swap(&hand, &s.hand)
            s.served = 0
            s.failure = nil
            defer { s.watchers = [] }
            return ([consumer, s.takeProducer()].compactMap { $0 } + s.watchers, dropped, hand)
        }
        for waiter in waiters { waiter.resume() }
    }
}

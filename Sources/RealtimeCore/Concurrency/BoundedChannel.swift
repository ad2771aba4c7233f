import Synchronization

/// A single-consumer async channel with back-pressure signalling and no loss.
///
/// Producers (usually the I/O thread) call `send(_:)` or `send(contentsOf:)`, which
/// always enqueue and return whether the producer may keep going. When they return `false`
/// the channel holds at least `capacity` elements: the producer should stop reading its
/// source (pause the socket or the curl transfer) until the demand handler fires. The
/// handler runs, outside the lock, when the consumer has drained the channel to half its
/// capacity. The channel can exceed `capacity` only by what a producer had in hand before
/// it saw `false`.
///
/// If the consuming task is cancelled, `next()` returns nil, the channel terminates and
/// the termination handler runs once (so the producer can close its connection).
///
/// Its bookkeeping is the `BoundedBuffer` state machine (the client's buffer is the same
/// machine), kept under a lock with the demand and termination handlers.
///
/// **Cost model.** The consumer takes everything buffered in one lock and then serves
/// elements from a private batch, so a stream costs one shared-lock round and at most one
/// wake-up per *batch*, not per element: producer and consumer barely contend. Elements in
/// the consumer's batch still count against `capacity` (the memory bound holds); the
/// consumer reports its progress back when the producer is paused and the batch has
/// dropped to half the capacity, so demand is signalled as early as before. The type is
/// `@inlinable` so it is specialised for the element type in client modules. (The class is
/// public, its members `package`: with the class `package` too, the optimizer did not
/// specialise it across modules, and every element went through generic metadata lookups.)
@_spi(Transport)
public final class BoundedChannel<Element: Sendable>: AsyncSequence, Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var buffer: BoundedBuffer<Element, CheckedContinuation<Void, Never>>
        @usableFromInline var demandHandler: (@Sendable () -> Void)?
        @usableFromInline var terminationHandler: (@Sendable () -> Void)?

        @inlinable init(capacity: Int) {
            buffer = BoundedBuffer(capacity: capacity)
        }

        /// The demand handler, when the buffer says the paused producer may read again.
        @inlinable func demand(if resume: Bool) -> (@Sendable () -> Void)? {
            resume ? demandHandler : nil
        }
    }

    /// The consumer's private batch, newest first (so `popLast` moves the oldest out in
    /// O(1) without a retain/release pair). Only the single consumer and ``terminate()``
    /// touch it, so its lock is uncontended in practice.
    @usableFromInline
    struct Batch {
        @usableFromInline var elements: [Element] = []
        @inlinable init() {}
    }

    @usableFromInline
    enum Take {
        case element(Element, (@Sendable () -> Void)?)
        case end((@Sendable () -> Void)?)
        case empty((@Sendable () -> Void)?)
    }

    @usableFromInline let state: LockedValue<State>
    @usableFromInline let batch = LockedValue(Batch())
    /// Mirrors the buffer's `paused` so the consumer can check it without the shared lock.
    @usableFromInline let pausedHint = Atomic<Bool>(false)

    package init(capacity: Int) {
        precondition(capacity > 0, "BoundedChannel capacity must be positive")
        self.state = LockedValue(State(capacity: capacity))
    }

    /// Queue size, in elements, at which producers are told to pause.
    package var capacity: Int { state.withLock { $0.buffer.capacity } }

    /// Changes the capacity, for an owner that picks it once it knows what the elements
    /// weigh (say, batches instead of single events), before anything is sent.
    package func setCapacity(_ capacity: Int) {
        precondition(capacity > 0, "BoundedChannel capacity must be positive")
        state.withLock { $0.buffer.capacity = capacity }
    }

    /// Called (outside the lock) when a paused producer may resume.
    package func setDemandHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.demandHandler = handler }
    }

    /// Called once (outside the lock) when the consumer cancels or ends the stream.
    package func setTerminationHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.terminationHandler = handler }
    }

    /// Enqueues `element`. Returns `true` if the producer may continue, `false` if it should
    /// pause until the demand handler runs. Elements sent after ``finish()`` or after
    /// termination are discarded (the consumer is gone or the stream is over).
    @inlinable
    @discardableResult
    @_specialize(where Element == TransportEvent)
    package func send(_ element: Element) -> Bool {
        let (waiter, mayContinue): (CheckedContinuation<Void, Never>?, Bool) = state.withLock { s in
            let waiter = s.buffer.push(element)
            return (waiter, self.producerMayContinue(&s))
        }
        waiter?.resume()
        return mayContinue
    }

    /// Enqueues every element of `elements`, in order, under one lock and with at most one
    /// consumer wake-up. Returns what ``send(_:)`` of the last element would have returned.
    /// Discarded after ``finish()`` or termination, like ``send(_:)``.
    @inlinable
    @discardableResult
    package func send<S: Sequence>(contentsOf elements: S) -> Bool where S.Element == Element {
        var array = Array(elements)
        return send(draining: &array)
    }

    /// Moves every element of `elements` into the channel, in order, and leaves `elements`
    /// empty: like ``send(contentsOf:)``, but when the channel is empty the two arrays trade
    /// storage instead of copying, so a producer that batches into a reused array hands a
    /// batch over without copying or allocating.
    @inlinable
    @discardableResult
    @_specialize(where Element == TransportEvent)
    package func send(draining elements: inout [Element]) -> Bool {
        let (waiter, mayContinue): (CheckedContinuation<Void, Never>?, Bool) = state.withLock { s in
            guard !elements.isEmpty else { return (nil, s.buffer.phase != .open || s.buffer.count < s.buffer.capacity) }
            let waiter = s.buffer.push(&elements)
            return (waiter, self.producerMayContinue(&s))
        }
        // Outside the lock: releases discarded elements, keeps the array's capacity.
        elements.removeAll(keepingCapacity: true)
        waiter?.resume()
        return mayContinue
    }

    /// Asks the buffer after a push whether the producer may go on (and mirrors a pause).
    @inlinable
    func producerMayContinue(_ s: inout State) -> Bool {
        guard !s.buffer.producerMayContinue() else { return true }
        pausedHint.store(true, ordering: .relaxed)
        return false
    }

    /// Number of elements sent and not yet consumed.
    package var bufferedCount: Int {
        batch.withLock { b in b.elements.count + state.withLock { $0.buffer.elements.count } }
    }

    /// Marks the end of the stream: the consumer receives what is buffered, then nil.
    package func finish() {
        state.withLock { $0.buffer.finish() }?.resume()
    }

    /// Ends the stream from the consumer side: buffered elements are dropped, the
    /// termination handler runs once, and ``next()`` returns nil from now on.
    @usableFromInline package func terminate() {
        let (waiter, handler, dropped): (CheckedContinuation<Void, Never>?, (@Sendable () -> Void)?, [Element]) =
            state.withLock { s in
                guard s.buffer.phase != .terminated else { return (nil, nil, []) }
                let (waiter, dropped) = s.buffer.terminate()
                let h = s.terminationHandler
                s.terminationHandler = nil
                s.demandHandler = nil
                return (waiter, h, dropped)
            }
        // The consumer's batch is dropped too (after the shared lock: lock order is always
        // batch → state). Elements are released outside both locks.
        let droppedBatch = batch.withLock { b in
            let e = b.elements
            b.elements = []
            return e
        }
        _ = (dropped, droppedBatch)
        waiter?.resume()
        handler?()
    }

    /// The next element, or nil at the end of the stream or when the task is cancelled.
    /// Only one task may wait at a time.
    @inlinable
    @_specialize(where Element == TransportEvent)
    package func next() async -> Element? {
        if Task.isCancelled {
            terminate()
            return nil
        }
        while true {
            switch take() {
            case .element(let e, let demand):
                demand?()
                return e
            case .end(let demand):
                demand?()
                return nil
            case .empty(let demand):
                demand?()
                await waitForElements()
                if Task.isCancelled {
                    terminate()
                    return nil
                }
            }
        }
    }

    /// The next element if one is buffered, without waiting: `.some(element)`, or `.none`
    /// when the consumer would have to wait or the stream is over (``next()`` tells which).
    /// For a consumer with a synchronous fast path; the single-consumer rule applies.
    @inlinable
    @_specialize(where Element == TransportEvent)
    package func poll() -> Element? {
        if Task.isCancelled { return nil }
        switch take() {
        case .element(let e, let demand):
            demand?()
            return e
        case .end(let demand), .empty(let demand):
            demand?()
            return nil
        }
    }

    /// Serves the next element from the consumer's batch, refilling it from the shared
    /// buffer (one lock for everything buffered) when it runs dry.
    @inlinable
    @_specialize(where Element == TransportEvent)
    func take() -> Take {
        batch.withLock { b -> Take in
            if let e = b.elements.popLast() {
                let remaining = b.elements.count
                // Report progress only when it can release a paused producer.
                guard pausedHint.load(ordering: .relaxed) else { return .element(e, nil) }
                return .element(e, state.withLock { s in reportHeld(&s, remaining) })
            }
            return state.withLock { s -> Take in
                let (take, resume) = s.buffer.take(into: &b.elements)
                let demand = released(&s, resume)
                switch take {
                case .end: return .end(demand)
                case .empty: return .empty(demand)
                case .elements:
                    b.elements.reverse()
                    return .element(b.elements.removeLast(), demand ?? reportHeld(&s, b.elements.count))
                }
            }
        }
    }

    /// The consumer still holds `held` elements: the demand handler when the producer may
    /// read again.
    @inlinable
    func reportHeld(_ s: inout State, _ held: Int) -> (@Sendable () -> Void)? {
        released(&s, s.buffer.report(held: held))
    }

    @inlinable
    func released(_ s: inout State, _ resume: Bool) -> (@Sendable () -> Void)? {
        if !s.buffer.paused { pausedHint.store(false, ordering: .relaxed) }
        return s.demand(if: resume)
    }

    /// Suspends until something was sent, the stream finished or the channel terminated.
    @inlinable
    @_specialize(where Element == TransportEvent)
    func waitForElements() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                state.withLock { $0.buffer.wait(c) }?.resume()
            }
        } onCancel: {
            self.terminate()
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = Never
        @usableFromInline let channel: BoundedChannel
        @inlinable init(channel: BoundedChannel) { self.channel = channel }
        @inlinable public mutating func next() async -> Element? { await channel.next() }
        /// What `for await` calls. Implemented here rather than left to the protocol's
        /// default (which calls ``next()``): an element already in the consumer's batch is
        /// served synchronously, with no nested async call or executor check per element.
        @inlinable
        @_specialize(where Element == TransportEvent)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            // Cancellation (which terminates the channel) and the end are the slow path's.
            if let e = channel.poll() { return e }
            return await channel.next()
        }
    }

    @inlinable
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: self) }
}

/// The one bounded buffer between a producer (an I/O thread or a reading task) and a single
/// consumer, as a pure value: the client's buffer (kept under the lock that runs the client
/// machine, so the relay numbers a batch and buffers it in one acquisition), `BoundedChannel`'s
/// and `AsyncBoundedQueue`'s. It never resumes anything itself: each step returns the
/// consumer's waiter to resume, or whether the paused producer may read again, for the caller
/// to act on once the lock is released.
///
/// **Bound.** At most ``capacity`` elements are counted, buffered or in the consumer's hand
/// (taken by ``take(into:)`` and not yet served): when a producer's push reaches it,
/// ``producerMayContinue()`` pauses the producer, and the producer is released exactly once,
/// when the count has dropped to half the capacity. Pushes are never refused while open
/// (what a producer had in hand when told to pause still goes in), so nothing is dropped.
///
/// **End.** ``finish()`` ends the stream after what is buffered; ``terminate()`` ends it at
/// once and drops what is buffered (the consumer left, or the client closed).
@usableFromInline package struct BoundedBuffer<Element, Waiter> {
    @usableFromInline package enum Phase: Equatable {
        case open
        /// No more pushes: the consumer gets what is buffered, then the end.
        case finished
        /// Over: the consumer gets the end, buffered elements are dropped.
        case terminated
    }

    /// What the consumer gets from ``take(into:)``.
    @usableFromInline package enum Take: Equatable {
        /// Everything that was buffered, now in the consumer's hand (this many elements).
        case elements(Int)
        case empty
        case end
    }

    /// Elements counted at which a producer is told to pause; at least 1.
    @usableFromInline package var capacity: Int {
        didSet { precondition(capacity > 0, "the client's buffer capacity must be positive") }
    }
    /// Buffered elements, oldest first.
    @usableFromInline package var elements: [Element] = []
    /// Elements the consumer took and has not served yet, as it last reported: counted
    /// against ``capacity`` so the bound covers them.
    @usableFromInline package var held = 0
    /// The consumer, waiting for an element or the end.
    @usableFromInline package var waiter: Waiter?
    /// A producer was told to pause and not yet to read again.
    @usableFromInline package var paused = false
    @usableFromInline package var phase = Phase.open

    @inlinable package init(capacity: Int) {
        precondition(capacity > 0, "the client's buffer capacity must be positive")
        self.capacity = capacity
    }

    /// Elements counted against ``capacity``.
    @inlinable package var count: Int { elements.count + held }

    /// Moves `batch` to the back of the buffer, leaving `batch` empty (the arrays trade
    /// storage when the buffer is empty: no copy). After the end the batch is left in
    /// `batch`, for the caller to release outside the lock. Returns the waiter to resume.
    @inlinable package mutating func push(_ batch: inout [Element]) -> Waiter? {
        guard phase == .open, !batch.isEmpty else { return nil }
        if elements.isEmpty {
            swap(&elements, &batch)
        } else {
            elements.append(contentsOf: batch)
            batch.removeAll(keepingCapacity: true)
        }
        return takeWaiter()
    }

    /// Appends one element (dropped after the end). Returns the waiter to resume.
    @inlinable package mutating func push(_ element: Element) -> Waiter? {
        guard phase == .open else { return nil }
        elements.append(element)
        return takeWaiter()
    }

    /// Asked by a producer after its pushes: false when the buffer is full, and the producer
    /// must pause until ``take(into:)`` or ``report(held:)`` says it may read again.
    @inlinable package mutating func producerMayContinue() -> Bool {
        guard phase == .open, count >= capacity else { return true }
        paused = true
        return false
    }

    /// Moves everything buffered into the consumer's `hand` (which must be empty; it trades
    /// storage with the buffer). The consumer serves the first element at once and holds
    /// the rest, which stay counted. `resume` is true when a paused producer may read again.
    @inlinable package mutating func take(into hand: inout [Element]) -> (take: Take, resume: Bool) {
        precondition(hand.isEmpty, "the consumer takes from the buffer with an empty hand")
        switch phase {
        case .terminated:
            return (.end, false)
        case .open, .finished:
            guard !elements.isEmpty else {
                held = 0
                return (phase == .finished ? .end : .empty, takeResume())
            }
            swap(&hand, &elements)
            held = hand.count - 1
            return (.elements(hand.count), takeResume())
        }
    }

    /// The consumer still holds `held` elements it took: true when a paused producer may
    /// read again.
    @inlinable package mutating func report(held: Int) -> Bool {
        guard phase != .terminated else { return false }
        self.held = held
        return takeResume()
    }

    /// The consumer is about to wait. Returns `waiter` back when there is no need (an
    /// element or the end is there: resume it at once), else keeps it for the next push or
    /// the end. One consumer: a second waiter is a programming error.
    @inlinable package mutating func wait(_ waiter: Waiter) -> Waiter? {
        guard phase == .open, elements.isEmpty else { return waiter }
        precondition(self.waiter == nil, "the client's buffer has a single consumer")
        self.waiter = waiter
        return nil
    }

    /// Ends the stream after what is buffered. Returns the waiter to resume.
    @inlinable package mutating func finish() -> Waiter? {
        guard phase == .open else { return nil }
        phase = .finished
        return takeWaiter()
    }

    /// Ends the stream at once: buffered elements are returned (to release outside the
    /// lock), the waiter is returned to resume, and no producer is released any more.
    @inlinable package mutating func terminate() -> (waiter: Waiter?, dropped: [Element]) {
        guard phase != .terminated else { return (nil, []) }
        phase = .terminated
        paused = false
        held = 0
        var dropped: [Element] = []
        swap(&dropped, &elements)
        return (takeWaiter(), dropped)
    }

    @inlinable mutating func takeWaiter() -> Waiter? {
        defer { waiter = nil }
        return waiter
    }

    @inlinable mutating func takeResume() -> Bool {
        guard paused, count <= capacity / 2 else { return false }
        paused = false
        return true
    }
}

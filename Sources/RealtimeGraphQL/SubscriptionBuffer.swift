/// The bounded buffer between the connection's router (one producer) and a subscription's
/// iterator (one consumer), sans I/O: it holds the waiting continuations and returns the ones
/// to resume; its driver (`SubscriptionChannel`) resumes them outside its lock.
///
/// **Bound.** At most `capacity` results wait; the producer then waits for room, which stops
/// the router and, behind it, the client's reading from the socket (nothing is dropped).
/// **End.** `finish` ends the sequence after what is buffered (the server completed, or an
/// error to throw); `cancel` ends it at once and drops what is buffered (the application
/// stopped listening).
struct SubscriptionBuffer<Element: Sendable>: Sendable {
    typealias Consumer = CheckedContinuation<Element?, any Error>
    typealias Producer = CheckedContinuation<Void, Never>

    let capacity: Int
    private var elements: [Element] = []
    private var head = 0
    /// nil while open; `.some(nil)` finished normally; `.some(error)` finished with an error.
    private var end: (any Error)??
    private var cancelled = false
    private var consumer: Consumer?
    private var producer: Producer?

    init(capacity: Int) {
        precondition(capacity >= 1, "a subscription buffer holds at least one result")
        self.capacity = capacity
    }

    var count: Int { elements.count - head }
    private var isOver: Bool { cancelled || end != nil }

    enum PushAction {
        /// Buffered, or handed to the waiting consumer (resume it with the element).
        case accepted(Consumer?)
        /// Full: wait for room (``waitForRoom(_:)``), then push again.
        case full
        /// The sequence is over: the element is dropped.
        case dropped
    }

    mutating func push(_ element: Element) -> PushAction {
        guard !isOver else { return .dropped }
        if let c = consumer {
            precondition(count == 0, "a consumer waits while results are buffered")
            consumer = nil
            return .accepted(c)
        }
        guard count < capacity else { return .full }
        elements.append(element)
        return .accepted(nil)
    }

    /// The producer waits for room; false when there is room (or the sequence is over)
    /// already: resume it now.
    mutating func waitForRoom(_ p: Producer) -> Bool {
        guard !isOver, count >= capacity else { return false }
        precondition(producer == nil, "one producer waits at a time")
        producer = p
        return true
    }

    enum NextAction {
        /// The next element; resume the producer if it waited for room.
        case element(Element, Producer?)
        /// The end: nil, or the error to throw.
        case end((any Error)?)
        /// Nothing yet: wait (``wait(_:)``).
        case empty
    }

    mutating func next() -> NextAction {
        if cancelled { return .end(nil) }
        if count > 0 {
            let element = elements[head]
            head += 1
            if head == elements.count {
                elements.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= elements.count {
                elements.removeFirst(head)
                head = 0
            }
            defer { producer = nil }
            return .element(element, producer)
        }
        if let end {
            self.end = .some(nil)  // an error is thrown once; later calls end normally
            return .end(end)
        }
        return .empty
    }

    /// The consumer waits for an element; false when one (or the end) is there already.
    mutating func wait(_ c: Consumer) -> Bool {
        guard !isOver, count == 0 else { return false }
        precondition(consumer == nil, "one consumer waits at a time")
        consumer = c
        return true
    }

    /// Ends the sequence after the buffered elements; returns the waiting consumer, to
    /// resume with the end. A second end is ignored.
    mutating func finish(_ error: (any Error)?) -> Consumer? {
        guard !isOver else { return nil }
        end = .some(error)
        defer { consumer = nil }
        return consumer
    }

    /// Ends the sequence now and drops what is buffered; returns the waiters to resume
    /// (the consumer with nil).
    mutating func cancel() -> (Consumer?, Producer?) {
        guard !cancelled else { return (nil, nil) }
        cancelled = true
        elements = []
        head = 0
        defer {
            consumer = nil
            producer = nil
        }
        return (consumer, producer)
    }
}

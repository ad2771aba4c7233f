/// The decisions of the UI-rate adapter (``CoalescedSequence``), as a pure state machine:
/// elements arrive from a source, a single consumer asks for batches, time is passed in
/// (a `Duration` since an arbitrary origin). The driver performs the returned actions.
///
/// Rules:
/// - A batch is everything that arrived since the last one, in order, with neighbours merged
///   by the merge function (nothing is dropped or reordered).
/// - When the consumer is idle (nothing delivered for at least `interval`), a batch goes out
///   as soon as an element is there; otherwise it waits until `interval` after the last one.
///   So batches are at most one per `interval`, except:
/// - when the source ends, what is pending goes out at once, then the end (a reply's last
///   words are not held back for up to an interval).
/// - At most `capacity` (merged) elements wait; beyond that the source is paused until the
///   consumer takes a batch (back-pressure instead of unbounded memory).
package struct CoalescingStateMachine<Element, Failure: Error> {
    private enum Consumer {
        /// Not inside `next()`.
        case idle
        /// Inside `next()`, nothing pending.
        case waiting
        /// Inside `next()`, elements pending, a timer armed for this deadline.
        case waitingUntil(Duration)
    }

    private enum Source {
        case running
        case ended(Failure?)
        /// The end (and its failure, if any) was handed to the consumer.
        case reported
        /// The consumer went away; the source is being cancelled.
        case cancelled
    }

    package let interval: Duration
    package let capacity: Int
    private let merge: @Sendable (inout Element, Element) -> Bool
    private var pending: [Element] = []
    private var lastDelivery: Duration?
    private var consumer = Consumer.idle
    private var source = Source.running
    private var producerPaused = false

    package init(interval: Duration, capacity: Int, merge: @escaping @Sendable (inout Element, Element) -> Bool) {
        precondition(interval >= .zero, "the interval must not be negative")
        precondition(capacity >= 1, "the capacity must be at least 1")
        self.interval = interval
        self.capacity = capacity
        self.merge = merge
    }

    /// Elements waiting for the next batch (after merging).
    package var pendingCount: Int { pending.count }

    /// Whether the source is paused because `capacity` elements wait.
    package var isProducerPaused: Bool { producerPaused }

    // MARK: Consumer

    package enum NextAction {
        /// Return this batch; resume the paused producer when `resumeProducer`.
        case deliver([Element], resumeProducer: Bool)
        /// Suspend until an element arrives or the source ends.
        case suspend
        /// Suspend and arm a timer for this deadline (elements are pending).
        case suspendUntil(Duration)
        /// Return the end: nil, or throw the failure.
        case finish(Failure?)
    }

    package mutating func next(now: Duration) -> NextAction {
        guard case .idle = consumer else { preconditionFailure("next() while another next() is waiting") }
        if !pending.isEmpty {
            if case .running = source, let deadline = nextSlot, now < deadline {
                consumer = .waitingUntil(deadline)
                return .suspendUntil(deadline)
            }
            return takeBatch(now: now)
        }
        switch source {
        case .running:
            consumer = .waiting
            return .suspend
        case .ended(let failure):
            source = .reported
            return .finish(failure)
        case .reported, .cancelled:
            return .finish(nil)
        }
    }

    // MARK: Source

    package enum ArrivalAction {
        /// Keep reading the source.
        case none
        /// Resume the waiting consumer with this batch.
        case deliver([Element])
        /// Arm a timer for this deadline (the consumer waits for it); then pause like
        /// `pause` when `pause` is true.
        case armTimer(Duration, pause: Bool)
        /// Stop reading the source until the consumer takes a batch (or goes away).
        case pause
        /// The consumer went away: stop reading, the element is discarded.
        case stop
    }

    package mutating func elementArrived(_ element: Element, now: Duration) -> ArrivalAction {
        switch source {
        case .running: break
        case .cancelled: return .stop
        case .ended, .reported: preconditionFailure("an element after the source ended")
        }
        if pending.isEmpty || !merge(&pending[pending.count - 1], element) {
            pending.append(element)
        }
        if case .waiting = consumer {
            guard let deadline = nextSlot, now < deadline else {
                consumer = .idle
                guard case .deliver(let batch, _) = takeBatch(now: now) else { preconditionFailure("no batch") }
                return .deliver(batch)
            }
            consumer = .waitingUntil(deadline)
            return .armTimer(deadline, pause: pauseIfFull())
        }
        return pauseIfFull() ? .pause : .none
    }

    private mutating func pauseIfFull() -> Bool {
        guard pending.count >= capacity else { return false }
        producerPaused = true
        return true
    }

    package enum EndAction {
        case none
        /// Resume the waiting consumer with this (last) batch.
        case deliver([Element])
        /// Resume the waiting consumer with the end.
        case finish(Failure?)
    }

    /// The source finished (`failure` nil) or threw.
    package mutating func sourceEnded(_ failure: Failure?, now: Duration) -> EndAction {
        guard case .running = source else { return .none }
        source = .ended(failure)
        producerPaused = false
        switch consumer {
        case .idle:
            return .none
        case .waiting, .waitingUntil:
            consumer = .idle
            if !pending.isEmpty {
                guard case .deliver(let batch, _) = takeBatch(now: now) else { preconditionFailure("no batch") }
                return .deliver(batch)
            }
            source = .reported
            return .finish(failure)
        }
    }

    // MARK: Timer

    package enum TimerAction {
        case none
        /// Resume the waiting consumer with this batch; resume the paused producer when
        /// `resumeProducer`.
        case deliver([Element], resumeProducer: Bool)
    }

    /// A timer armed for `deadline` fired (it may be stale: a batch went out meanwhile).
    /// The timer is trusted to have waited: a clock that wakes a hair early still delivers,
    /// stamped with the deadline.
    package mutating func timerFired(deadline: Duration, now: Duration) -> TimerAction {
        guard case .waitingUntil(let armed) = consumer, armed == deadline else { return .none }
        consumer = .idle
        guard case .deliver(let batch, let resume) = takeBatch(now: max(now, deadline)) else { preconditionFailure("no batch") }
        return .deliver(batch, resumeProducer: resume)
    }

    // MARK: Cancellation

    package struct CancelAction {
        /// Whether a waiting consumer must be resumed with the end.
        package var finishConsumer: Bool
        /// Whether the paused producer must be resumed (to see the cancellation and stop).
        package var resumeProducer: Bool
    }

    /// The consumer went away (its task was cancelled, or the iterator was dropped): pending
    /// elements are discarded, the source is to be cancelled.
    package mutating func cancelled() -> CancelAction {
        let action = CancelAction(finishConsumer: !isConsumerIdle, resumeProducer: producerPaused)
        pending.removeAll()
        producerPaused = false
        consumer = .idle
        source = .cancelled
        return action
    }

    // MARK: Helpers

    private var isConsumerIdle: Bool {
        if case .idle = consumer { return true }
        return false
    }

    /// The earliest time the next batch may go out; nil when one may go out now.
    private var nextSlot: Duration? {
        lastDelivery.map { $0 + interval }
    }

    private mutating func takeBatch(now: Duration) -> NextAction {
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        lastDelivery = now
        let resume = producerPaused
        producerPaused = false
        return .deliver(batch, resumeProducer: resume)
    }
}

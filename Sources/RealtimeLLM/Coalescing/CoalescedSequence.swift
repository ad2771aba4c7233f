/// An `AsyncSequence` adapter that hands its consumer batches of the source's elements at a
/// UI's pace: at most one batch per interval (default 1/30 s), the first element at once
/// when the consumer has been idle for an interval, nothing dropped or reordered,
/// neighbours merged (consecutive text deltas become one), and the end delivered as soon as
/// the source ends.
///
/// ```swift
/// for await batch in client.deltas(format: .openAI).coalesced() {
///     for delta in batch { reply.apply(delta) }
///     render(reply.text)    // about 30 times a second while tokens stream
/// }
/// ```
///
/// **How it runs.** Iterating starts a task that reads the source ahead, so elements
/// gather while the consumer waits for the interval; a batch is what gathered since the
/// previous one. When the source ends, what is pending is delivered at once (so the last
/// batch may come sooner than an interval after the previous one), then the end, or the
/// source's error.
///
/// **Limits.** At most `maxPending` elements (after merging) wait; then the source is not
/// read until the consumer takes a batch, which for a `RealtimeClient` stream pauses the
/// socket. Single consumer.
///
/// **Cancellation.** Cancelling the consuming task, or dropping the iterator (leaving the
/// `for await` loop), ends the batches and cancels the task reading the source, which
/// cancels the source's iteration (for a `RealtimeClient` stream: closes the client).
/// Pending elements are then discarded.
///
/// Decisions are made by `CoalescingStateMachine`; this type only performs them.
public struct CoalescedSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element: Sendable {

    let base: Base
    let interval: Duration
    let maxPending: Int
    let clock: CoalescingClock
    let merge: @Sendable (inout Base.Element, Base.Element) -> Bool

    package init(
        base: Base, interval: Duration, maxPending: Int, clock: CoalescingClock,
        merge: @escaping @Sendable (inout Base.Element, Base.Element) -> Bool
    ) {
        self.base = base
        self.interval = Swift.max(.zero, interval)
        self.maxPending = Swift.max(1, maxPending)
        self.clock = clock
        self.merge = merge
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let storage = CoalescingStorage<Base.Element, Base.Failure>(
            machine: CoalescingStateMachine(interval: interval, capacity: maxPending, merge: merge), clock: clock)
        storage.start(base)
        return AsyncIterator(lifetime: CoalescingIteratorLifetime(storage: storage))
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Each element is one batch of the base sequence's elements.

        let lifetime: CoalescingIteratorLifetime<Base.Element, Base.Failure>

        /// The next batch (never empty), nil at the end.
        public mutating func next() async throws(Base.Failure) -> [Base.Element]? {
            try await lifetime.storage.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Base.Failure) -> [Base.Element]? {
            try await lifetime.storage.next()
        }
    }
}

/// Cancels the reading task when the last copy of an iterator goes away.
final class CoalescingIteratorLifetime<Element: Sendable, Failure: Error>: Sendable {
    let storage: CoalescingStorage<Element, Failure>

    init(storage: CoalescingStorage<Element, Failure>) {
        self.storage = storage
    }

    deinit {
        storage.cancel()
    }
}

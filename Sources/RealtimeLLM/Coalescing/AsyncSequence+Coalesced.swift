extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// Batches of this sequence's elements at most once per `interval`: see
    /// ``CoalescedSequence``.
    ///
    /// - Parameters:
    ///   - interval: the shortest time between two batches. Default 1/30 s (a display's
    ///     useful refresh rate for streamed text).
    ///   - maxPending: elements (after merging) that may wait before the source is paused.
    ///     Default 1024.
    ///   - merge: merges an element into the previous pending one and returns true, or
    ///     returns false to keep both. Default: never merge.
    public func coalesced(
        every interval: Duration = .seconds(1) / 30, maxPending: Int = 1024,
        merge: @escaping @Sendable (inout Element, Element) -> Bool = { _, _ in false }
    ) -> CoalescedSequence<Self> {
        coalesced(every: interval, clock: ContinuousClock(), maxPending: maxPending, merge: merge)
    }

    /// `coalesced(every:maxPending:merge:)` timed by `clock` (tests pass a manual clock).
    public func coalesced<C: Clock>(
        every interval: Duration = .seconds(1) / 30, clock: C, maxPending: Int = 1024,
        merge: @escaping @Sendable (inout Element, Element) -> Bool = { _, _ in false }
    ) -> CoalescedSequence<Self> where C.Duration == Duration {
        CoalescedSequence(base: self, interval: interval, maxPending: maxPending, clock: CoalescingClock(clock), merge: merge)
    }
}

extension AsyncSequence where Self: Sendable, Element == LLMDelta {
    /// Batches of deltas at most once per `interval` (default 1/30 s), consecutive text
    /// deltas merged into one (and reasoning fragments of one block, audio fragments of one
    /// item, argument fragments of one tool call): see ``CoalescedSequence``.
    public func coalesced(every interval: Duration = .seconds(1) / 30, maxPending: Int = 1024) -> CoalescedSequence<Self> {
        coalesced(every: interval, clock: ContinuousClock(), maxPending: maxPending, merge: LLMDelta.merge)
    }

    /// `coalesced(every:maxPending:)` timed by `clock` (tests pass a manual clock).
    public func coalesced<C: Clock>(
        every interval: Duration = .seconds(1) / 30, clock: C, maxPending: Int = 1024
    ) -> CoalescedSequence<Self> where C.Duration == Duration {
        coalesced(every: interval, clock: clock, maxPending: maxPending, merge: LLMDelta.merge)
    }
}

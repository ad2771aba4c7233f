import Synchronization

extension RealtimeClient {
    /// Handed to the closure of `RealtimeClient.consume { event, context in … }`
    /// with each event: ``stop()`` ends the consumption once the closure returns.
    public final class ConsumeContext: Sendable {
        private let stopped = Atomic<Bool>(false)

        init() {}

        /// Ends the consumption after the current event: when the closure returns normally,
        /// the event counts as processed (the cursor covers it, and is saved), then the
        /// client is closed and `consume` returns. When the closure throws instead, the
        /// error wins: the event is not processed.
        public func stop() { stopped.store(true, ordering: .relaxed) }

        /// Whether ``stop()`` was called.
        public var isStopped: Bool { stopped.load(ordering: .relaxed) }
    }
}

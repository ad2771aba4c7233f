extension LLMReplies {
    /// See ``LLMReplies/batches``.
    public struct Batches: AsyncSequence, Sendable {
        public typealias Element = LLMReplyBatch
        public typealias Failure = Never
        let driver: LLMReplyDriver

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(driver: driver) }

        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Each element is one batch of a reply.
            public typealias Element = LLMReplyBatch
            public typealias Failure = Never
            let driver: LLMReplyDriver

            public mutating func next() async -> LLMReplyBatch? {
                await driver.next()
            }
        }
    }
}

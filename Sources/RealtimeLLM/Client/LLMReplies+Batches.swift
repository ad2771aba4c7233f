extension LLMReplies {
    /// See ``LLMReplies/batches``.
    public struct Batches: AsyncSequence, Sendable {
        let driver: LLMReplyDriver

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(driver: driver) }

        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Each element is one batch of a reply.
            let driver: LLMReplyDriver

            public mutating func next() async -> LLMReplyBatch? {
                await driver.next()
            }
        }
    }
}

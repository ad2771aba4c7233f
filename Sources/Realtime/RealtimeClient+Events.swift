extension RealtimeClient {
    /// The client's events, in order; see ``RealtimeClient/events``.
    ///
    /// Single consumer: the first iterator starts the client; further iterators end at
    /// once. Leaving the `for await` loop (or cancelling its task) closes the client.
    public struct Events: AsyncSequence, Sendable {
        let client: RealtimeClient
        /// Replaces the configuration's terminator when this iterator starts the client.
        var terminator: StreamTerminator?? = nil

        init(client: RealtimeClient) { self.client = client }

        /// The events of a reply whose decoder knows its end marker (the LLM kit's deltas).
        package init(client: RealtimeClient, terminator: StreamTerminator?) {
            self.client = client
            self.terminator = .some(terminator)
        }

        public func makeAsyncIterator() -> AsyncIterator {
            let first = client.startIfFirstIteration(terminator: terminator)
            return AsyncIterator(client: client, lifetime: first ? IteratorLifetime(client: client) : nil)
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            @usableFromInline let client: RealtimeClient
            /// Closes the client when the last copy of the first iterator goes away.
            @usableFromInline let lifetime: IteratorLifetime?

            /// The next event. Asking for it marks the previous one as processed, which is
            /// what advances the resume cursor (see ``RealtimeClient/acknowledge()``).
            public mutating func next() async -> ClientEvent? {
                guard lifetime != nil else { return nil }
                return await client.consumerNext()
            }

            /// What `for await` calls: a buffered event is served on the caller's own
            /// executor (say, the main actor) with no hop to the global executor and back.
            /// Inlinable, so the buffered case compiles into the caller's loop as a plain call
            /// (measured: a non-inlined async call cost two executor checks per event, a lock
            /// each when the task prefers a task executor).
            @inlinable
            public mutating func next(isolation actor: isolated (any Actor)?) async -> ClientEvent? {
                guard lifetime != nil else { return nil }
                if let (event, saved) = client.consumerPoll() {
                    if let saved { await client.save(saved) }
                    return event
                }
                return await client.consumerNext()
            }
        }
    }

    /// Closes the client when the consumer's iterator is dropped (the `for await` loop was
    /// left with `break`, `return` or a thrown error).
    @usableFromInline
    final class IteratorLifetime: Sendable {
        let client: RealtimeClient
        init(client: RealtimeClient) { self.client = client }
        deinit { client.close() }
    }
}

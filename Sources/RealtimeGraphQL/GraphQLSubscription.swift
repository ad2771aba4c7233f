import Synchronization

/// The results of one GraphQL subscription, in order (see
/// `GraphQLClient.subscribe(_:as:operationName:variables:)`).
///
/// Iterate it once: a second iterator ends at once. The operation stops (`complete` goes to
/// the server, results held for it are dropped) when you call ``cancel()``, when the task
/// iterating it is cancelled, or when the sequence and its iterator are released.
public struct GraphQLSubscription<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = GraphQLResult<Value>

    private let lifetime: Lifetime

    init(_ operation: GraphQLOperation<Value>) {
        lifetime = Lifetime(operation)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lifetime: lifetime, claimed: lifetime.claim())
    }

    /// Stops the operation now.
    public func cancel() {
        lifetime.operation.cancel()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate let lifetime: Lifetime
        fileprivate let claimed: Bool

        /// The next result; nil after the server's `complete` or ``GraphQLClient/close()``.
        ///
        /// - Throws: ``GraphQLClientError`` when the operation or the client ended with an error.
        public mutating func next() async throws -> GraphQLResult<Value>? {
            guard claimed else { return nil }
            let operation = lifetime.operation
            return try await withTaskCancellationHandler {
                try await operation.channel.next()
            } onCancel: {
                operation.cancel()
            }
        }
    }

    /// Stops the operation when the last copy of the sequence and its iterator goes.
    fileprivate final class Lifetime: Sendable {
        let operation: GraphQLOperation<Value>
        private let claimed = Atomic(false)

        init(_ operation: GraphQLOperation<Value>) {
            self.operation = operation
        }

        func claim() -> Bool {
            !claimed.exchange(true, ordering: .relaxed)
        }

        deinit {
            operation.cancel()
        }
    }
}

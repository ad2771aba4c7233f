import RealtimeCore

/// The events of a ``SocketIOClient``, in the order the server sent them; iterate once.
///
/// A consumer whose task is cancelled stops waiting: `next()` returns nil, and the client
/// keeps running (close it with ``SocketIOClient/close()``).
public struct SocketIOEvents: AsyncSequence, Sendable {

    let inbox: AsyncBoundedQueue<SocketIOEvent, Never>

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inbox: inbox)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: AsyncBoundedQueue<SocketIOEvent, Never>

        public mutating func next() async -> SocketIOEvent? {
            await inbox.next()
        }
    }
}

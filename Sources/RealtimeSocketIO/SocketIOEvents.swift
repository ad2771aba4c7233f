/// The events of a ``SocketIOClient``, in the order the server sent them; iterate once.
public struct SocketIOEvents: AsyncSequence, Sendable {

    let inbox: SocketIOInbox

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inbox: inbox)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: SocketIOInbox

        public mutating func next() async -> SocketIOEvent? {
            await inbox.next()
        }
    }
}

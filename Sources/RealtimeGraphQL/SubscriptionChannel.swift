import Synchronization
import RealtimeCore

/// The driver of a ``SubscriptionBuffer``: the router pushes (waiting while it is full), the
/// subscription's iterator takes; continuations are resumed outside the lock.
final class SubscriptionChannel<Element: Sendable>: Sendable {
    private let buffer: LockedValue<SubscriptionBuffer<Element>>

    init(capacity: Int) {
        buffer = LockedValue(SubscriptionBuffer(capacity: capacity))
    }

    /// Hands `element` to the consumer, waiting while the buffer is full; false when the
    /// sequence is over (the element is dropped).
    func push(_ element: Element) async -> Bool {
        while true {
            switch buffer.withLock({ $0.push(element) }) {
            case .accepted(let consumer):
                consumer?.resume(returning: element)
                return true
            case .dropped:
                return false
            case .full:
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    if !buffer.withLock({ $0.waitForRoom(c) }) { c.resume() }
                }
            }
        }
    }

    /// The next element, nil at the end; throws the error the sequence finished with.
    func next() async throws -> Element? {
        while true {
            switch buffer.withLock({ $0.next() }) {
            case .element(let element, let producer):
                producer?.resume()
                return element
            case .end(let error):
                if let error { throw error }
                return nil
            case .empty:
                let element: Element? = try await withCheckedThrowingContinuation { c in
                    if !buffer.withLock({ $0.wait(c) }) { c.resume(returning: nil) }
                }
                // nil: woken by an end, or there was something already: look again.
                if let element { return element }
            }
        }
    }

    /// Ends the sequence after what is buffered, normally or with `error`.
    func finish(_ error: (any Error)? = nil) {
        let consumer = buffer.withLock { $0.finish(error) }
        consumer?.resume(returning: nil)
    }

    /// Ends the sequence now, dropping what is buffered.
    func cancel() {
        let (consumer, producer) = buffer.withLock { $0.cancel() }
        consumer?.resume(returning: nil)
        producer?.resume()
    }

    /// Results waiting for the consumer.
    var count: Int { buffer.withLock { $0.count } }
}

import Synchronization
import RealtimeCore

/// The bounded buffer between the client's reader and the application's iterator: the reader
/// waits while it is full (nothing is dropped), one consumer takes from it.
final class SocketIOInbox: Sendable {
    private struct State {
        var queue: [SocketIOEvent] = []
        var head = 0
        var finished = false
        var consumer: CheckedContinuation<SocketIOEvent?, Never>?
        var producer: CheckedContinuation<Void, Never>?
        var count: Int { queue.count - head }
    }

    let capacity: Int
    private let state = LockedValue(State())

    init(capacity: Int) {
        precondition(capacity > 0, "SocketIOInbox capacity must be positive")
        self.capacity = capacity
    }

    /// Appends `event`, first waiting while the buffer is full; does nothing once finished.
    func put(_ event: SocketIOEvent) async {
        while true {
            let full = state.withLock { s in s.count >= capacity && !s.finished }
            if !full { break }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let wait = state.withLock { s in
                    guard s.count >= capacity, !s.finished else { return false }
                    s.producer = c
                    return true
                }
                if !wait { c.resume() }
            }
        }
        let consumer: CheckedContinuation<SocketIOEvent?, Never>? = state.withLock { s in
            guard !s.finished else { return nil }
            if let c = s.consumer {
                s.consumer = nil
                return c
            }
            s.queue.append(event)
            return nil
        }
        consumer?.resume(returning: event)
    }

    /// The next event, or nil once finished and drained, or when the consumer's task is
    /// cancelled (it stops waiting; what is buffered stays for a later iteration).
    func next() async -> SocketIOEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<SocketIOEvent?, Never>) in
                let (ready, producer) = take(orWait: c)
                producer?.resume()
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            let waiting = state.withLock { s in
                defer { s.consumer = nil }
                return s.consumer
            }
            waiting?.resume(returning: nil)
        }
    }

    /// Under the lock: the next event (and the producer it releases), nil for the end or a
    /// cancelled consumer, or `c` parked as the waiting consumer (`ready` is then nil).
    private func take(
        orWait c: CheckedContinuation<SocketIOEvent?, Never>
    ) -> (ready: SocketIOEvent??, producer: CheckedContinuation<Void, Never>?) {
        state.withLock { s in
            if s.count > 0 {
                let event = s.queue[s.head]
                s.head += 1
                if s.head > 64, s.head * 2 > s.queue.count {
                    s.queue.removeFirst(s.head)
                    s.head = 0
                }
                defer { s.producer = nil }
                return (.some(event), s.producer)
            }
            // Checked under the lock the cancellation handler takes: either it finds the
            // consumer parked here, or the consumer sees the cancellation now.
            if s.finished || Task.isCancelled { return (.some(nil), nil) }
            precondition(s.consumer == nil, "SocketIOClient.events has one consumer")
            s.consumer = c
            return (nil, nil)
        }
    }

    /// Ends the stream after what is buffered; a waiting producer is released.
    func finish() {
        let (consumer, producer) = state.withLock { s in
            s.finished = true
            defer {
                s.consumer = nil
                s.producer = nil
            }
            return (s.count == 0 ? s.consumer : nil, s.producer)
        }
        consumer?.resume(returning: nil)
        producer?.resume()
    }
}

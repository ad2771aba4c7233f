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

    /// The next event, or nil once finished and drained.
    func next() async -> SocketIOEvent? {
        await withCheckedContinuation { (c: CheckedContinuation<SocketIOEvent?, Never>) in
            let (ready, producer): (SocketIOEvent??, CheckedContinuation<Void, Never>?) = state.withLock { s in
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
                if s.finished { return (.some(nil), nil) }
                precondition(s.consumer == nil, "SocketIOClient.events has one consumer")
                s.consumer = c
                return (nil, nil)
            }
            producer?.resume()
            if let ready { c.resume(returning: ready) }
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

@_spi(Transport) import RealtimeCore

/// The server's messages on their way to the transport's one reader (``MCPClient`` or
/// `receive()`), bounded: the streams' pumps hand each message to a `BoundedChannel`, and a
/// pump the channel tells to pause waits for room before it reads its stream on. The stream's
/// own client buffer then fills, and its socket stops being read, so a server that floods a
/// reader that is behind is slowed by TCP, and nothing is dropped.
///
/// A message the transport writes itself (the response for a failed request) is handed over
/// without waiting: there is at most one per request, so the channel holds at most
/// ``capacity`` plus one per request in flight.
final class MCPInboundQueue: Sendable {
    /// How many messages the reader may be behind before the pumps wait.
    static let capacity = 64

    let channel: BoundedChannel<MCPInbound>
    private let room = LockedValue(Room())

    /// The pumps waiting for room. `epoch` counts the channel's demand signals, so a pump that
    /// was told to pause before a signal it has not seen yet does not wait for the next one.
    private struct Room {
        var epoch = 0
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var watchers: [CheckedContinuation<Void, Never>] = []
    }

    /// Returned by ``send(_:)`` when the pump must wait for room (``waitForRoom(_:)``).
    struct Pause: Sendable {
        fileprivate let epoch: Int
    }

    init(capacity: Int = MCPInboundQueue.capacity) {
        channel = BoundedChannel(capacity: capacity)
        channel.setDemandHandler { [weak self] in self?.wake(ending: false) }
        channel.setTerminationHandler { [weak self] in self?.wake(ending: true) }
    }

    /// Hands `message` to the reader; a ``Pause`` when the reader is `capacity` behind.
    @discardableResult
    func send(_ message: MCPInbound) -> Pause? {
        let epoch = room.withLock { $0.epoch }
        return channel.send(message) ? nil : Pause(epoch: epoch)
    }

    /// Returns once the reader has caught up to half the capacity since `pause`, or the
    /// queue has ended (the reader left, or the transport disconnected).
    func waitForRoom(_ pause: Pause) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let (proceed, watchers) = room.withLock { r -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard !r.ended, r.epoch == pause.epoch else { return (true, []) }
                r.waiters.append(waiter)
                defer { r.watchers = [] }
                return (false, r.watchers)
            }
            for watcher in watchers { watcher.resume() }
            if proceed { waiter.resume() }
        }
    }

    /// Returns once a pump waits for room (or the queue has ended): the state a test of the
    /// bound waits for.
    func untilAPumpWaits() async {
        await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
            let now = room.withLock { r -> Bool in
                guard r.waiters.isEmpty, !r.ended else { return true }
                r.watchers.append(watcher)
                return false
            }
            if now { watcher.resume() }
        }
    }

    /// Whether the queue has ended: nothing more reaches the reader.
    var isEnded: Bool { room.withLock { $0.ended } }

    /// The reader gets what is queued, then the end; waiting pumps go on (and stop).
    func finish() {
        channel.finish()
        wake(ending: true)
    }

    private func wake(ending: Bool) {
        let resumed = room.withLock { r -> [CheckedContinuation<Void, Never>] in
            r.epoch += 1
            if ending { r.ended = true }
            defer {
                r.waiters = []
                if ending { r.watchers = [] }
            }
            return r.waiters + (ending ? r.watchers : [])
        }
        for continuation in resumed { continuation.resume() }
    }
}

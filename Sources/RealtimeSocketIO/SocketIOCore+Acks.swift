import Realtime
import RealtimeCore

extension SocketIOCore {
    /// Registers the waiter of `key`, runs `send`, and waits for the acknowledgement; the
    /// first of the ack, the timeout, the end of the connection it went out on, a failed send
    /// and cancellation resolves it, once.
    ///
    /// With `withdrawable` (one packet, which may wait in the outbox), an emit still in the
    /// outbox when the waiter is resolved without its ack (timeout, cancellation) is taken out
    /// of it: the caller was told it failed, and sent later it would repeat a retry. An emit
    /// with attachments is never withdrawn, so a packet is not parted from them.
    func awaitAck(
        _ key: SocketIOAckTable<AckWaiter>.Key, timeout: Duration, withdrawable: Bool, send: @escaping @Sendable () async throws -> Void
    ) async throws -> SocketIOArguments {
        let timer = clock.arm(after: timeout) { [weak self] in
            self?.resolve(key, SocketIOError(.ackTimeout, detail: "no acknowledgement within \(timeout.millisecondsDescription)"))
        }
        // The sending task, and whether the wait is over (then a task stored late is withdrawn at once).
        let sender = LockedValue<(task: Task<Void, Never>?, over: Bool)>((nil, false))
        defer {
            timer.cancel()
            let task = sender.withLock { s in
                s.over = true
                return s.task
            }
            if withdrawable { task?.cancel() }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: AckWaiter) in
                let stopped = state.withLock { s in
                    if !s.stopped { s.acks.wait(key, c) }
                    return s.stopped
                }
                if stopped { return c.resume(throwing: SocketIOError(.closed)) }
                // Cancelled before the waiter was registered: the handler found nothing to
                // resolve, so nothing is sent and the waiter is resolved here.
                if Task.isCancelled { return resolve(key, RealtimeError.cancelled) }
                let task = Task { [weak self] in
                    do {
                        try await send()
                        self?.sent(key)
                    } catch {
                        self?.resolve(key, error)
                    }
                }
                if sender.withLock({ s in
                    s.task = task
                    return s.over
                }), withdrawable {
                    task.cancel()
                }
            }
        } onCancel: {
            resolve(key, RealtimeError.cancelled)
        }
    }

    /// The emit of `key` went out on the connection that is open now; when none is (it
    /// ended since it took the emit), the acknowledgement cannot come.
    private func sent(_ key: SocketIOAckTable<AckWaiter>.Key) {
        var attempt: Int?
        if case .open(let info)? = realtime.withLock({ $0.client })?.state { attempt = info.attempt }
        let lost = state.withLock { s in attempt.map { s.acks.sent(key, on: $0) } ?? s.acks.take(key) }
        lost?.resume(throwing: SocketIOError(.connectionLost, detail: "the connection ended before the acknowledgement"))
    }

    private func resolve(_ key: SocketIOAckTable<AckWaiter>.Key, _ error: any Error) {
        state.withLock { $0.acks.take(key) }?.resume(throwing: error)
    }
}

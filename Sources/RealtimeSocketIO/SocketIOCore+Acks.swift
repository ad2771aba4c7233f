import Realtime

extension SocketIOCore {
    /// Registers the waiter of `key`, runs `send`, and waits for the acknowledgement; the
    /// first of the ack, the timeout, the end of the connection it went out on, a failed send
    /// and cancellation resolves it, once.
    func awaitAck(_ key: SocketIOAckTable<AckWaiter>.Key, timeout: Duration, send: @escaping @Sendable () async throws -> Void) async throws -> SocketIOArguments {
        let timer = clock.arm(after: timeout) { [weak self] in
            self?.resolve(key, SocketIOError(.ackTimeout, detail: "no acknowledgement within \(timeout.millisecondsDescription)"))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: AckWaiter) in
                let stopped = state.withLock { s in
                    if !s.stopped { s.acks.wait(key, c) }
                    return s.stopped
                }
                if stopped { return c.resume(throwing: SocketIOError(.closed)) }
                Task { [weak self] in
                    do {
                        try await send()
                        self?.sent(key)
                    } catch {
                        self?.resolve(key, error)
                    }
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

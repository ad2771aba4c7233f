@_spi(Transport) import RealtimeCore
extension RealtimeClient {
    /// Sends a message (WebSocket). On an open connection it returns once the message is
    /// accepted into the connection's bounded outbound queue (waiting only while that queue
    /// is full); accepted messages are written in order (see the `Transport` contract).
    ///
    /// While no connection is open, ``Configuration/sendPolicy`` decides: with
    /// ``SendPolicy/failFast`` (default) it throws `not_connected` at once; with
    /// ``SendPolicy/queue(maxMessages:maxBytes:timeout:)`` the message waits in the client's
    /// outbox and this returns once it went out on the next connection (queued messages go
    /// first, in order, each at most once).
    ///
    /// - Throws: ``RealtimeError`` `notConnected` (fail fast, no open connection),
    ///   `sendQueueFull`, `sendExpired`, `cancelled` (the task was cancelled while the message
    ///   was queued, or ``close()``), the error that stopped the client, or
    ///   `sendNotSupported` on SSE.
    ///
    /// With `flush: true` it returns only once the frame is written to the socket (after the
    /// queued messages before it), and throws if it could not be.
    public func send(_ message: OutboundMessage, flush: Bool = false) async throws {
        let bytes = message.payloadSize
        var decision = decideSend { machine, now in machine.sendRequested(message, bytes: bytes, flush: flush, now: now) }
        while true {
            switch decision {
            case .fail(let error):
                throw error
            case .queued(let id):
                return try await waitForQueuedSend(id)
            case .live(let transport, let attempt):
                do {
                    try await transport.send(message, flush: flush)
                    storage.state.withLock { $0.machine.sent(bytes: bytes) }
                    return
                } catch let error as RealtimeError where error.code == .notConnected {
                    // The connection went away before taking it: never sent.
                    decision = decideSend { machine, now in
                        machine.liveSendRefused(message, bytes: bytes, flush: flush, attempt: attempt, now: now)
                    }
                }
            }
        }
    }

    /// What a send does, with the live transport when it goes straight to it.
    enum SendDecision {
        case live(any Transport, attempt: Int)
        case queued(id: UInt64)
        case fail(RealtimeError)
    }

    /// Asks the machine under the lock, performs what it asks after the lock.
    private func decideSend(_ ask: (inout ClientStateMachine, Duration) -> ClientStateMachine.SendAction) -> SendDecision {
        let now = clock.now()
        var queued: [CheckedContinuation<Void, Never>] = []
        let (decision, work): (SendDecision, ClientStorage.Work) = storage.state.withLock { s in
            var work = ClientStorage.Work()
            let decision: SendDecision
            switch ask(&s.machine, now) {
            case .fail(let error):
                decision = .fail(error)
            case .sendLive(let attempt):
                if let live = s.transport, live.attempt == attempt {
                    decision = .live(live.transport, attempt: attempt)
                } else {
                    decision = .fail(RealtimeError(.notConnected))
                }
            case .queued(let id, let effects):
                s.absorb(effects, into: &work)
                decision = .queued(id: id)
                queued = s.sends.watchers(satisfiedBy: s.machine.outboxCount)
            }
            s.conclude(&work)
            return (decision, work)
        }
        for watcher in queued { watcher.resume() }
        perform(work)
        return decision
    }

    /// Returns once the outbox holds at least `count` messages: a queued sender only parks,
    /// and a test that queues in a known order waits here before starting the next sender.
    func untilOutboxHolds(_ count: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now: Bool = storage.state.withLock { s in
                if s.machine.outboxCount >= count { return true }
                s.sends.outboxWatchers.append((count, c))
                return false
            }
            if now { c.resume() }
        }
    }

    /// Waits for the machine to resolve queued send `id`; cancelling the task takes it out
    /// of the outbox (unless it is already going out).
    private func waitForQueuedSend(_ id: UInt64) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let early: RealtimeError?? = storage.state.withLock { s in
                    if let resolved = s.sends.early.removeValue(forKey: id) { return .some(resolved) }
                    s.sends.waiters[id] = c
                    return nil
                }
                guard let early else { return }
                if let error = early { c.resume(throwing: error) } else { c.resume() }
            }
        } onCancel: {
            handle { machine, _ in machine.sendCancelled(id: id) }
        }
    }

    /// Hands the outbox to the open connection, one message at a time (so the order holds),
    /// until the machine says stop (the queue is empty, or no connection takes messages); as
    /// work of the client's, which ``close()`` cancels.
    func drainSends() {
        startWork { client in
            while let (entry, transport, attempt) = client.nextQueuedSend() {
                var failure: RealtimeError?
                if let transport {
                    do {
                        try await transport.send(entry.message, flush: entry.flush)
                    } catch {
                        failure = (error as? RealtimeError) ?? RealtimeError(.internal, detail: "send failed")
                    }
                } else {
                    failure = RealtimeError(.notConnected)
                }
                client.handle { machine, now in
                    if failure == nil { machine.sent(bytes: entry.bytes) }
                    return machine.queuedSendSettled(id: entry.id, attempt: attempt, error: failure, now: now)
                }
            }
        }
    }

    private func nextQueuedSend() -> (SendQueue.Entry, (any Transport)?, Int)? {
        storage.state.withLock { s in
            guard let (entry, attempt) = s.machine.nextQueuedSend() else { return nil }
            let transport = s.transport.flatMap { $0.attempt == attempt ? $0.transport : nil }
            return (entry, transport, attempt)
        }
    }

    /// Arms the outbox's expiry timer; kept only while no newer arming or disarm came.
    func armSendExpiry(_ deadline: Duration, generation: UInt64) {
        let timer = clock.arm(at: deadline) { [weak self] in
            self?.handle { machine, now in machine.sendExpiryFired(now: now) }
        }
        let keep: Bool = storage.state.withLock { s in
            guard s.sends.expiryGeneration == generation else { return false }
            s.sends.expiry = timer
            return true
        }
        if !keep { timer.cancel() }
    }
}

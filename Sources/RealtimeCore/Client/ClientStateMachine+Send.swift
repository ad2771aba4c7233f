extension ClientStateMachine {
    /// Messages in the outbox, the one going out included.
    package var outboxCount: Int { sends.queued.count + (sends.inFlight == nil ? 0 : 1) }

    /// The attempt whose connection is ready (open, past its on-open hook) and not being ended
    /// by the client, if any: the one queued messages go out on.
    var openAttempt: Int? {
        guard case .attempting(let a) = phase, a.opened, a.ending == nil, a.hookFailure == nil else {
            return nil
        }
        return a.number
    }

    /// Why no send can succeed any more (the transport cannot send, or the client is done).
    private var sendsRefusal: RealtimeError? {
        guard configuration.canSend else { return RealtimeError(.sendNotSupported) }
        switch phase {
        case .closed: return .cancelled
        case .finished(let reason): return reason ?? RealtimeError(.notConnected, detail: "the client stopped")
        default: return nil
        }
    }

    /// The application sends `message` (`bytes` of payload; `flush`: the caller waits for the
    /// write). An open connection takes it at once unless queued messages are still going
    /// out; otherwise the ``SendPolicy`` decides: fail fast, or queue.
    package mutating func sendRequested(_ message: OutboundMessage, bytes: Int, flush: Bool, now: Duration) -> SendAction {
        if let refusal = sendsRefusal { return .fail(refusal) }
        guard case .queue(let maxMessages, let maxBytes, let timeout) = configuration.sendPolicy.base else {
            // Fail fast: a started attempt takes it (a WebSocket send before the transport's
            // handshake completes waits for it); during the on-open hook's handshake the
            // connection is not ready, so the send fails (what the hook sends goes first).
            return acceptsSends ? .sendLive(attempt: liveAttempt) : .fail(RealtimeError(.notConnected))
        }
        if let open = openAttempt, sends.isEmpty, !sends.draining, sends.refusedAttempt != open {
            return .sendLive(attempt: open)
        }
        guard bytes <= maxBytes else {
            return .fail(RealtimeError(.sendQueueFull, detail: "the message is larger than the outbox (\(maxBytes) bytes)"))
        }
        guard sends.admits(size: bytes, maxMessages: maxMessages, maxBytes: maxBytes) else {
            return .fail(RealtimeError(.sendQueueFull, detail: "the outbox holds \(maxMessages) messages or \(maxBytes) bytes"))
        }
        let id = sends.allocateID()
        sends.append(SendQueue.Entry(id: id, message: message, bytes: bytes, flush: flush, deadline: timeout.map { now + $0 }))
        return .queued(id: id, armSendExpiry() + startDrainIfNeeded())
    }

    /// A message sent live (``SendAction/sendLive(attempt:)``) was refused by attempt
    /// `attempt`'s transport with `notConnected`: the connection went away before accepting
    /// it, so it was never sent. With the queue policy it goes to the head of the outbox
    /// (it was sent before anything queued) and out on the next connection.
    package mutating func liveSendRefused(
        _ message: OutboundMessage, bytes: Int, flush: Bool, attempt: Int, now: Duration
    ) -> SendAction {
        guard case .queue(let maxMessages, let maxBytes, let timeout) = configuration.sendPolicy.base else {
            return .fail(RealtimeError(.notConnected))
        }
        if let refusal = sendsRefusal { return .fail(refusal) }
        guard bytes <= maxBytes, sends.admits(size: bytes, maxMessages: maxMessages, maxBytes: maxBytes) else {
            return .fail(RealtimeError(.sendQueueFull, detail: "the connection went away and the outbox is full"))
        }
        let id = sends.allocateID()
        sends.prepend(SendQueue.Entry(id: id, message: message, bytes: bytes, flush: flush, deadline: timeout.map { now + $0 }))
        if openAttempt == attempt { sends.refusedAttempt = attempt }
        return .queued(id: id, armSendExpiry() + startDrainIfNeeded())
    }

    /// The drain (``Effects/drainSends``) asks for the next queued message: the message and
    /// the attempt whose connection takes it, or nil when the queue is empty or no connection
    /// takes messages (the drain ends; the next `open` starts another).
    package mutating func nextQueuedSend() -> (entry: SendQueue.Entry, attempt: Int)? {
        precondition(sends.draining, "nextQueuedSend() outside a drain")
        precondition(sends.inFlight == nil, "a drain sends one message at a time")
        if let open = openAttempt, sends.refusedAttempt != open, let entry = sends.takeNext() {
            return (entry, open)
        }
        sends.draining = false
        return nil
    }

    /// The drain's message `id` was accepted by attempt `attempt`'s connection (`error` nil),
    /// refused (`notConnected`: it goes back to the head of the queue), or failed with
    /// `error` (returned to its sender).
    package mutating func queuedSendSettled(id: UInt64, attempt: Int, error: RealtimeError?, now: Duration) -> Effects {
        let refused = error?.code == .notConnected
        guard sends.settle(id, accepted: !refused) else {
            preconditionFailure("settled a message that was not in flight")
        }
        guard refused else { return .resolveSends([SendResolution(id: id, error: error)]) + armSendExpiry() }
        if let refusal = sendsRefusal {
            _ = sends.remove(id)
            return .resolveSends([SendResolution(id: id, error: refusal)])
        }
        if openAttempt == attempt { sends.refusedAttempt = attempt }
        return armSendExpiry()
    }

    /// The sender of queued message `id` stopped waiting (its task was cancelled): it leaves
    /// the queue, unless it is already going out.
    package mutating func sendCancelled(id: UInt64) -> Effects {
        guard sends.remove(id) else { return .nothing }  // already going out, or resolved
        return .resolveSends([SendResolution(id: id, error: .cancelled)]) + armSendExpiry()
    }

    /// The expiry timer fired: queued messages past their deadline fail with `send_expired`.
    package mutating func sendExpiryFired(now: Duration) -> Effects {
        sends.armedExpiry = nil
        let expired = sends.removeExpired(now: now)
        var effects = Effects.nothing
        if !expired.isEmpty {
            let error = RealtimeError(.sendExpired, detail: "not sent within the outbox timeout")
            let log = ClientLogRecord(.notice, "queued messages expired", ["count": "\(expired.count)"])
            effects = .log(log) + .resolveSends(expired.map { SendResolution(id: $0.id, error: error) })
        }
        return effects + armSendExpiry()
    }

    /// A connection opened: the outbox goes out on it first.
    mutating func startDrainIfNeeded() -> Effects {
        guard !sends.draining, !sends.queued.isEmpty, let open = openAttempt, sends.refusedAttempt != open else { return .nothing }
        sends.draining = true
        return .flags(drainSends: true)
    }

    /// The client is done (closed: `cancelled`; the policy stopped: the reason it stopped):
    /// every queued message fails with that error; one in flight settles on its own.
    mutating func failQueuedSends() -> Effects {
        guard let error = sendsRefusal, !sends.queued.isEmpty || sends.armedExpiry != nil else { return .nothing }
        let failed = sends.removeAllQueued()
        return .resolveSends(failed.map { SendResolution(id: $0.id, error: error) }) + armSendExpiry()
    }

    /// Keeps the expiry timer armed for the earliest queued deadline (or disarmed).
    private mutating func armSendExpiry() -> Effects {
        let wanted = sends.earliestDeadline
        guard wanted != sends.armedExpiry else { return .nothing }
        sends.armedExpiry = wanted
        return .sendExpiry(wanted.map { .arm(deadline: $0) } ?? .disarm)
    }
}

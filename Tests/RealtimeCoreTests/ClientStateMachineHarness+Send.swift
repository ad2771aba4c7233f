import RealtimeCore
import Testing

/// The outbox, driven as `RealtimeClient+Send.swift` drives it: live sends go to the
/// transport (accepted or refused later, in call order), queued ones wait for a resolution,
/// the drain takes one message at a time.
extension ClientStateMachineHarness {
    mutating func performSend(_ effects: ClientStateMachine.Effects) {
        if effects.drainSends {
            if outbox.drainRunning { outbox.problems.append("a second drain while one runs") }
            outbox.drainRunning = true
        }
        switch effects.sendExpiry {
        case .arm(let deadline): outbox.expiry = deadline
        case .disarm: outbox.expiry = nil
        case nil: break
        }
        for r in effects.resolvedSends { resolve(r) }
    }

    private mutating func resolve(_ r: ClientStateMachine.SendResolution) {
        if !outbox.resolvedIDs.insert(r.id).inserted { outbox.problems.append("send \(r.id) resolved twice") }
        guard let sender = outbox.queuedSender.removeValue(forKey: r.id) else {
            outbox.problems.append("resolved unknown send \(r.id)")
            return
        }
        if let error = r.error {
            outbox.sends[sender].outcome = .failed(error.code)
        } else if let attempt = outbox.sends[sender].outcome.flatMap({ if case .sent(let a) = $0 { a } else { nil } }) {
            outbox.sends[sender].outcome = .sent(attempt: attempt)
        } else {
            outbox.problems.append("send \(r.id) resolved as sent but no connection accepted it")
        }
    }

    /// The application sends `text`; returns the sender's index.
    @discardableResult
    mutating func send(_ text: String, flush: Bool = false) -> Int {
        let sender = outbox.sends.count
        outbox.sends.append(HarnessOutbox.Send(text: text, at: now))
        handle(machine.sendRequested(.text(text), bytes: text.utf8.count, flush: flush, now: now), sender: sender)
        return sender
    }

    private mutating func handle(_ action: ClientStateMachine.SendAction, sender: Int) {
        switch action {
        case .sendLive(let attempt):
            guard transportAttempt == attempt else {
                outbox.problems.append("a live send for attempt \(attempt), whose transport is not started")
                outbox.sends[sender].outcome = .failed(.notConnected)
                return
            }
            outbox.live.append((sender, attempt))
        case .queued(let id, let effects):
            outbox.queuedSender[id] = sender
            apply(effects)
        case .fail(let error):
            outbox.sends[sender].outcome = .failed(error.code)
        }
    }

    /// The transport accepts the oldest pending live send.
    mutating func acceptLive() {
        guard !outbox.live.isEmpty else { return }
        let (sender, attempt) = outbox.live.removeFirst()
        outbox.accepted.append((outbox.sends[sender].text, attempt))
        outbox.sends[sender].outcome = .sent(attempt: attempt)
    }

    /// The transport refuses every pending live send of `attempt` (its connection went away),
    /// in call order, as a transport fails the sends waiting on it when it ends.
    mutating func refuseLive(attempt: Int) {
        let refused = outbox.live.filter { $0.attempt == attempt }
        outbox.live.removeAll { $0.attempt == attempt }
        for (sender, attempt) in refused {
            let text = outbox.sends[sender].text
            handle(machine.liveSendRefused(.text(text), bytes: text.utf8.count, flush: false, attempt: attempt, now: now), sender: sender)
        }
    }

    /// The drain asks for the next message and hands it to the transport it names.
    mutating func drainNext() {
        guard outbox.drainRunning, outbox.inFlight == nil else { return }
        guard let (entry, attempt) = machine.nextQueuedSend() else {
            outbox.drainRunning = false
            return
        }
        guard let sender = outbox.queuedSender[entry.id] else {
            outbox.problems.append("the drain took unknown send \(entry.id)")
            return
        }
        outbox.inFlight = (entry.id, sender, attempt)
    }

    /// The drain's message is accepted (or refused when its connection is gone or `refuse`).
    mutating func settleDrain(refuse: Bool = false) {
        guard let (id, sender, attempt) = outbox.inFlight else { return }
        outbox.inFlight = nil
        let refused = refuse || transportAttempt != attempt || transport != .opened
        if !refused {
            outbox.accepted.append((outbox.sends[sender].text, attempt))
            outbox.sends[sender].outcome = .sent(attempt: attempt)
        }
        apply(machine.queuedSendSettled(id: id, attempt: attempt, error: refused ? RealtimeError(.notConnected) : nil, now: now))
    }

    /// Runs the drain until it stops (every message accepted).
    mutating func drainAll() {
        while outbox.drainRunning {
            drainNext()
            if outbox.inFlight == nil { break }
            settleDrain()
        }
    }

    /// Moves time to the expiry deadline and fires the timer.
    mutating func fireSendExpiry() {
        guard let deadline = outbox.expiry else { Issue.record("no expiry armed"); return }
        outbox.expiry = nil
        now = max(now, deadline)
        apply(machine.sendExpiryFired(now: now))
    }

    /// The sender of `sender` is cancelled.
    mutating func cancelSend(_ sender: Int) {
        guard let id = outbox.queuedSender.first(where: { $0.value == sender })?.key else { return }
        apply(machine.sendCancelled(id: id))
    }
}

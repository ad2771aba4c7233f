import RealtimeCore

/// The outbox's part of the random sequences: sends of every kind at any moment, the
/// transport accepting or refusing them, the drain, expiry and cancelled senders; and the
/// outbox's guarantees after every step.
extension FuzzRun {
    mutating func sendOptions(_ options: inout [(String, (inout FuzzRun) -> Void)]) {
        if chance(2) { options.append(("send", { r in
            // Texts of 1 to 6 bytes, unique by sender: "m<n>".
            let text = "m\(r.h.outbox.sends.count)"
            r.h.send(String(text.prefix(6)), flush: r.chance(4))
        })) }
        // The transport's answers weigh more than one option each, so that queues drain
        // while connections are open (else most runs end before a queued message goes out).
        for _ in 0..<3 {
            if !h.outbox.live.isEmpty { options.append(("acceptLive", { $0.h.acceptLive() })) }
            if h.outbox.drainRunning && h.outbox.inFlight == nil { options.append(("drainNext", { $0.h.drainNext() })) }
            if h.outbox.inFlight != nil { options.append(("settle", { r in r.h.settleDrain(refuse: r.chance(5)) })) }
        }
        if h.outbox.expiry != nil { options.append(("expiry", { $0.h.fireSendExpiry() })) }
        if chance(4), let queued = h.outbox.queuedSender.values.first {
            options.append(("cancelSend", { $0.h.cancelSend(queued) }))
        }
    }

    /// Each accepted message accepted once, in the order it was sent; the bounds kept; an
    /// expiry only after the timeout; nothing left queued after the end.
    mutating func checkOutbox() {
        let outbox = h.outbox
        if let problem = outbox.problems.first { fail(problem) }
        let order = outbox.accepted.map { Int($0.text.dropFirst()) ?? -1 }
        if order != order.sorted() || Set(order).count != order.count {
            fail("messages accepted out of order or twice: \(order)")
        }
        guard case .queue(let maxMessages, _, let timeout) = configuration.sendPolicy.base else {
            if !outbox.queuedSender.isEmpty { fail("a message queued under failFast") }
            return
        }
        let queued = outbox.queuedSender.count - (outbox.inFlight == nil ? 0 : 1)
        if outbox.queuedSender.count > maxMessages { fail("\(queued) messages queued, the bound is \(maxMessages)") }
        for send in outbox.sends where send.outcome == .failed(.sendExpired) {
            if let timeout, h.now < send.at + timeout { fail("\(send.text) expired before its timeout") }
            if timeout == nil { fail("\(send.text) expired without a timeout") }
        }
        if h.machine.isTerminal {
            if queued > 0 { fail("\(queued) messages still queued after the end") }
            if outbox.expiry != nil { fail("the expiry timer outlived the client") }
        }
    }
}

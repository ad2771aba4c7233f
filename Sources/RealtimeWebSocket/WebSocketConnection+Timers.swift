#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

extension WebSocketConnection {
    /// Arms `timer` for `deadline` (replacing an armed one of the same kind).
    ///
    /// The close timer holds the connection: a closing handshake or a failing connection
    /// runs to its end (the server's answer, or this deadline) even when the transport was
    /// released as soon as it was told to close, as a client closed by its application is.
    /// The other timers only hold a weak reference.
    func arm(_ timer: Machine.Timer, at deadline: Loop.Instant) {
        if timer == .close {
            timers.arm(timer, at: deadline, on: loop) { self.timerFired(timer) }
        } else {
            timers.arm(timer, at: deadline, on: loop) { [weak self] in self?.timerFired(timer) }
        }
    }

    func cancel(_ timer: Machine.Timer) {
        timers.cancel(timer, on: loop)
    }

    private func timerFired(_ timer: Machine.Timer) {
        timers.fired(timer)
        let outbound = stream.map(outboundProgress) ?? Machine.OutboundProgress()
        switch machine.timerFired(timer, now: loop.now, outbound: outbound) {
        case .none:
            break
        case .rearm(let deadline):
            arm(timer, at: deadline)
        case .sendHeartbeat(let message, let next):
            write(message, completion: nil)
            arm(.heartbeat, at: next)
        case .fail(let code, let deadline):
            perform(.fail(code: code, deadline: deadline))
        case .finishErrorBody:
            finishErrorBody()
        case .end(let ending):
            perform(ending)
        }
    }

    /// The network path changed: ping, and expect a byte (the pong, or anything) within
    /// `timeout`. A socket bound to a vanished address never gets one.
    func verify(within timeout: Duration) {
        switch machine.verifyRequested(within: timeout, now: loop.now) {
        case .none:
            break
        case .sendPing(let deadline):
            write(.ping([]), completion: nil)
            arm(.probe, at: deadline)
        }
    }
}
#endif

#if os(Linux)
import RealtimeCore
import RealtimeIO

/// The attempt's timers on the loop: the machine decides (connect, idle, path-change probe),
/// the connection keeps one handle per armed kind.
extension SSEConnection {
    /// Arms `timer` for `deadline` (replacing an armed one of the same kind).
    func arm(_ timer: Machine.Timer, at deadline: Loop.Instant) {
        cancel(timer)
        timers[timer] = loop.schedule(at: deadline) { [weak self] in
            self?.timerFired(timer)
        }
    }

    func cancel(_ timer: Machine.Timer) {
        if let handle = timers.removeValue(forKey: timer) { loop.cancel(handle) }
    }

    private func timerFired(_ timer: Machine.Timer) {
        timers[timer] = nil
        switch machine.timerFired(timer, now: loop.now) {
        case .none:
            break
        case .rearm(let deadline):
            arm(timer, at: deadline)
        case .end(let end):
            perform(end)
        }
    }

    /// The network path changed: a byte must arrive within `timeout` (see
    /// ``SSEAttemptStateMachine/verifyRequested(within:now:)``).
    func verify(within timeout: Duration) {
        switch machine.verifyRequested(within: timeout, now: loop.now) {
        case .none:
            break
        case .armProbe(let deadline):
            arm(.probe, at: deadline)
        }
    }
}
#endif

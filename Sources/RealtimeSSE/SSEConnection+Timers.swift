#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// The attempt's timers on the loop: the machine decides (connect, idle, path-change probe),
/// the connection keeps one handle per armed kind.
extension SSEConnection {
    /// Arms `timer` for `deadline` (replacing an armed one of the same kind).
    func arm(_ timer: Machine.Timer, at deadline: Loop.Instant) {
        timers.arm(timer, at: deadline, on: loop) { [weak self] in self?.timerFired(timer) }
    }

    func cancel(_ timer: Machine.Timer) {
        timers.cancel(timer, on: loop)
    }

    private func timerFired(_ timer: Machine.Timer) {
        timers.fired(timer)
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


/// A counting signal between a ``BoundedChannel``'s demand handler and the reconnect loop:
/// each time the channel said "pause" the loop waits here for one ``signal()``.
/// Waiting ends early, without a permit, when the waiting task is cancelled.
final class DemandGate: Sendable {
    private struct State {
        var permits = 0
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = LockedValue(State())

    func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.permits += 1
            return nil
        }
        waiter?.resume()
    }

    func wait() async {
        await waitAsSingleWaiter(
            park: { c in
                state.withLock { s in
                    if s.permits > 0 {
                        s.permits -= 1
                        return true
                    }
                    if Task.isCancelled { return true }
                    precondition(s.waiter == nil, "DemandGate has a single waiter")
                    s.waiter = c
                    return false
                }
            },
            unpark: { self.state.withLock { s in defer { s.waiter = nil }; return s.waiter } }
        )
    }
}

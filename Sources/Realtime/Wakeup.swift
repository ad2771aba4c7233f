
/// Interrupts the reconnect loop's waits (backoff sleep, suspension) when the app calls
/// `suspend()`/`resume()` (and, later, when the network returns).
///
/// Generation-based, so a wake that happens between the loop deciding to wait and actually
/// waiting is never lost: the loop captures ``generation`` first and waits "since" it.
final class Wakeup: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = LockedValue(State())

    var generation: UInt64 { state.withLock { $0.generation } }

    func wake() {
        let w: CheckedContinuation<Void, Never>? = state.withLock { s in
            s.generation &+= 1
            defer { s.waiter = nil }
            return s.waiter
        }
        w?.resume()
    }

    /// Returns once ``wake()`` has been called after `since` was read, or when the task is
    /// cancelled.
    func wait(since: UInt64) async {
        await waitAsSingleWaiter(
            park: { c in
                state.withLock { s in
                    if s.generation != since || Task.isCancelled { return true }
                    precondition(s.waiter == nil, "Wakeup has a single waiter")
                    s.waiter = c
                    return false
                }
            },
            unpark: { self.state.withLock { s in defer { s.waiter = nil }; return s.waiter } }
        )
    }
}

/// The armed timers of one connection on its scheduler, at most one per kind: arming a kind
/// replaces its armed timer, and the table forgets a timer once it fired. Confined to the
/// scheduler's thread, like the connection that owns it.
package struct LoopTimers<Kind: Hashable> {
    private var armed: [Kind: TimerHandle] = [:]

    package init() {}

    package var isEmpty: Bool { armed.isEmpty }

    /// The handles of every armed timer.
    package var handles: [TimerHandle] { Array(armed.values) }

    /// Arms `kind` for `deadline` on `loop`, cancelling the one armed before.
    package mutating func arm<Loop: LoopScheduler>(
        _ kind: Kind, at deadline: Loop.Instant, on loop: Loop, _ fire: @escaping () -> Void
    ) {
        cancel(kind, on: loop)
        armed[kind] = loop.schedule(at: deadline, fire)
    }

    package mutating func cancel<Loop: LoopScheduler>(_ kind: Kind, on loop: Loop) {
        if let handle = armed.removeValue(forKey: kind) { loop.cancel(handle) }
    }

    /// `kind`'s timer fired: nothing is left to cancel.
    package mutating func fired(_ kind: Kind) {
        armed[kind] = nil
    }

    package mutating func cancelAll<Loop: LoopScheduler>(on loop: Loop) {
        for handle in armed.values { loop.cancel(handle) }
        armed = [:]
    }
}

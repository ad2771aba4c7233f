import RealtimeCore
import RealtimeTestSupport
import Testing

/// A value that tests wait on without polling: every change wakes the waiters whose
/// condition now holds. A wait that is not satisfied within its bound (wall time, 20 s by
/// default: only a broken client takes that long) records an issue and returns false.
final class Observed<Value: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }
    private struct State {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }
    private let state: LockedValue<State>

    init(_ value: Value) { state = LockedValue(State(value: value)) }

    var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes the waiters it satisfies.
    func update(_ change: (inout Value) -> Void) {
        let ready: [CheckedContinuation<Bool, Never>] = state.withLock { s in
            change(&s.value)
            let due = s.waiters.filter { $0.value.condition(s.value) }
            for id in due.keys { s.waiters[id] = nil }
            return due.values.map(\.continuation)
        }
        for c in ready { c.resume(returning: true) }
    }

    /// Waits until `condition` holds. `what` describes the wait in the issue recorded on timeout.
    @discardableResult
    func wait(
        _ what: @autoclosure () -> String, within: Duration = .seconds(20),
        sourceLocation: SourceLocation = #_sourceLocation, until condition: @escaping @Sendable (Value) -> Bool
    ) async -> Bool {
        let id: UInt64 = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        let timeout = WallTime.expire(after: within) { [weak self] in self?.expire(id) }
        defer { timeout.cancel() }
        let met = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            let now: Bool = state.withLock { s in
                if condition(s.value) { return true }
                s.waiters[id] = Waiter(condition: condition, continuation: c)
                return false
            }
            if now { c.resume(returning: true) }
        }
        if !met { Issue.record("timed out after \(within) waiting for \(what())", sourceLocation: sourceLocation) }
        return met
    }

    private func expire(_ id: UInt64) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
    }
}

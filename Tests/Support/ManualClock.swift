import RealtimeCore

/// A `Clock` that only moves when a test calls ``advance(by:)``; sleepers wake in deadline order.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by d: Duration) -> Instant { Instant(offset: offset + d) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Tasks waiting for at least `count` sleepers.
        var watchers: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The watchers whose count is reached, removed.
        mutating func dueWatchers() -> [CheckedContinuation<Void, Never>] {
            let n = sleepers.count
            let due = watchers.filter { $0.count <= n }.map(\.continuation)
            watchers.removeAll { $0.count <= n }
            return due
        }
    }
    private let state = LockedValue(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Number of tasks currently sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until at least `count` tasks sleep on this clock (a timer was armed): what a
    /// test waits for before it moves time, instead of polling ``sleeperCount``. Returns early
    /// when the waiting task is cancelled (a test racing it against another outcome).
    public func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { s in
                    if s.sleepers.count >= count || Task.isCancelled { return true }
                    s.watchers.append((id, count, c))
                    return false
                }
                if ready { c.resume() }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, Never>? = state.withLock { s in
                guard let i = s.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.watchers.remove(at: i).continuation
            }
            c?.resume()
        }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Start { case fire, cancelled, sleep([CheckedContinuation<Void, Never>]) }
                let start: Start = state.withLock { s in
                    if Task.isCancelled { return .cancelled }
                    if deadline <= s.now { return .fire }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return .sleep(s.dueWatchers())
                }
                switch start {
                case .fire: c.resume()
                case .cancelled: c.resume(throwing: CancellationError())
                case .sleep(let watchers): for w in watchers { w.resume() }
                }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, any Error>? = state.withLock { s in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i).continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    public func advance(by d: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { s in
            s.now = s.now.advanced(by: d)
            let now = s.now
            let fired = s.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            s.sleepers.removeAll { $0.deadline <= now }
            return fired.map(\.continuation)
        }
        for c in due { c.resume() }
    }
}

import Foundation
import Synchronization

/// The few places where a test lets wall time pass, each for a reason a state machine cannot
/// stand in for. Everything else waits on what the code under test reports (`Observed`,
/// `stateChanges`, `ManualClock.waitForSleepers`, `ManualLoop.advanceTime`).
public enum WallTime {
    /// Runs `onExpiry` once `within` has passed, unless the returned task is cancelled first:
    /// the bound on a wait that should end by itself (a hung test fails instead of hanging).
    /// Never what a test asserts; the bounds are generous so that a loaded machine only makes
    /// a test slower.
    @discardableResult
    public static func expire(after within: Duration, _ onExpiry: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        Task {
            do { try await Task.sleep(for: within) } catch { return }
            onExpiry()
        }
    }

    /// Runs `body`; throws ``DeadlineExceeded`` if it has not returned within `within`
    /// (`body` is then cancelled).
    public static func withDeadline<T: Sendable>(
        _ within: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                await hold(for: within)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(within: within) }
            return value
        }
    }

    /// Lets `duration` of wall time pass: a fault scenario's own length (a link down for
    /// 1.5 s, a server gone for a while), which is what the scenario is about, or a window in
    /// which a process outside the test's control (a child process, the kernel) shows what it
    /// does. Returns early when the task is cancelled.
    public static func hold(for duration: Duration) async {
        try? await Task.sleep(for: duration)
    }

    /// Calls `sample` on a thread of its own every `interval` until `sample` returns false:
    /// for readings that nothing reports (a child's resident memory, a byte counter read at a
    /// steady rhythm), where a task delayed by a loaded machine would bend the measurement.
    public static func sample(every interval: Duration, _ sample: @escaping @Sendable () -> Bool) -> Thread {
        let microseconds = useconds_t(max(1, interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000))
        let thread = Thread {
            while sample() { usleep(microseconds) }
        }
        thread.start()
        return thread
    }
}

/// ``WallTime/withDeadline(_:_:)`` ran out.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public let within: Duration
    public var description: String { "did not finish within \(within)" }
}

import RealtimeCore
import Testing

/// Work a test's embedded rig leaves for the end of the test: ending the connections it made
/// and checking that nothing they armed outlives them.
///
/// An embedded connection that a test leaves open holds its loop, and the loop holds the
/// connection's timers: a cycle that outlives the test (LeakSanitizer reports it). Rigs
/// register an end with ``register(_:)``; the ``Trait/endsEmbeddedConnections`` trait runs
/// every registered end after each test of a suite, where a rig aborts its connection, runs
/// its loop, and expects no timer or queued work left — a timer that outlived an aborted
/// connection would keep it alive in production too.
public enum EndOfTest {
    @TaskLocal static var ends: Ends?

    /// Runs `end` after the current test, when the test runs with the trait; otherwise the
    /// rig is left as the test left it.
    public static func register(_ end: @escaping @Sendable () -> Void) {
        ends?.list.withLock { $0.append(end) }
    }

    final class Ends: Sendable {
        let list = LockedValue<[@Sendable () -> Void]>([])

        func run() {
            // A rig's end may register nothing more; run what is there, newest first.
            for end in list.withLock({ $0 }).reversed() { end() }
            list.withLock { $0 = [] }
        }
    }
}

/// Ends the embedded connections each test made (see ``EndOfTest``).
public struct EndsEmbeddedConnections: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else { return try await function() }
        let ends = EndOfTest.Ends()
        defer { ends.run() }
        try await EndOfTest.$ends.withValue(ends) { try await function() }
    }
}

extension Trait where Self == EndsEmbeddedConnections {
    /// Ends the embedded connections each test of the suite made, and checks that none left a
    /// timer behind (see ``EndOfTest``).
    public static var endsEmbeddedConnections: Self { EndsEmbeddedConnections() }
}

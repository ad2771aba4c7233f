import Foundation

/// Runs blocking work (a child process, a blocking socket read) on a thread of its own and
/// awaits it, so tests never hold one of the few cooperative-pool threads (2 on a 2-core
/// machine) while they wait; holding them starves every other test's tasks.
public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        Thread { c.resume(with: Result { try body() }) }.start()
    }
}

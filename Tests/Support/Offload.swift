import Foundation

/// Runs blocking work (a child process, a blocking socket read) on a thread of its own and
/// awaits it, so tests never hold one of the few cooperative-pool threads (2 on a 2-core
/// machine) while they wait; holding them starves every other test's tasks.
public func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        Thread { c.resume(with: Result { try body() }) }.start()
    }
}

/// For a long CPU-bound test loop: gives the cooperative pool back every `interval`-th
/// iteration. Async tests share a pool of one thread per core (two on the CI machine) and
/// every test of a run starts at once: loops that run for seconds without suspending hold a
/// thread that long, and every other test's tasks wait for it.
public func yieldToOtherTests(every interval: Int, _ iteration: some BinaryInteger) async {
    if iteration % numericCast(interval) == 0 { await Task.yield() }
}

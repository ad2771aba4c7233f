#if os(Linux)
extension EventLoop {
    /// Runs `body` on the loop thread and returns its result to the awaiting task.
    ///
    /// A bridge for async code (and tests) that needs a loop-thread value. A task running on
    /// the loop (it prefers the loop as its executor) may await it too: it suspends, and the
    /// loop runs `body` before resuming it.
    package func submit<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            execute { c.resume(returning: body()) }
        }
    }
}
#endif

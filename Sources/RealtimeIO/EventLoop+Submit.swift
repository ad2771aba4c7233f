#if os(Linux)
extension EventLoop {
    /// Runs `body` on the loop thread and returns its result to the awaiting task.
    ///
    /// A bridge for async code (and tests) that needs a loop-thread value; the loop thread
    /// itself must never await this (it would wait for itself).
    public func submit<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        precondition(!inEventLoop, "EventLoop.submit would deadlock on the loop thread")
        return await withCheckedContinuation { (c: CheckedContinuation<T, Never>) in
            execute { c.resume(returning: body()) }
        }
    }
}
#endif

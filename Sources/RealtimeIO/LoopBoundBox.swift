#if os(Linux)
/// A mutable reference to loop-thread-only state that may be *carried* across threads
/// (captured by a `@Sendable` closure handed to `EventLoop/execute(_:)`) but only *used*
/// on its loop's thread, which every access checks with a precondition.
///
/// This is the one sanctioned escape hatch for non-`Sendable` connection state: the
/// compiler cannot see the loop's thread rule, the precondition enforces it at run time.
package final class LoopBoundBox<Value>: @unchecked Sendable {
    package let loop: EventLoop
    private var storage: Value

    /// Creates the box; may be called on any thread (the value is only stored).
    package init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        self.storage = value
    }

    /// The boxed value. Loop thread only.
    package var value: Value {
        get {
            precondition(loop.inEventLoop, "LoopBoundBox read off its loop thread")
            return storage
        }
        set {
            precondition(loop.inEventLoop, "LoopBoundBox written off its loop thread")
            storage = newValue
        }
    }
}
#endif

/// A pending one-shot timer on an ``EventLoop``; returned by
/// `EventLoop/schedule(after:_:)`. Cancelling a timer that already fired (or was already
/// cancelled) does nothing.
package struct TimerHandle: Sendable, Hashable {
    /// Unique within the loop that created it.
    package let id: UInt64

    package init(id: UInt64) {
        self.id = id
    }
}

@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

/// The arena block the SSE connections of one event loop are filling, shared by all of them.
///
/// Why shared rather than one per connection: a connection that kept its own current block
/// between batches pinned up to a block (32 KiB) while quiet, so ten thousand quiet streams
/// held 320 MiB. Every connection of a loop appends on the loop thread, one after another,
/// so they can fill one block together: the block is then released once it is full and the
/// events on it are consumed, whichever connections they came from.
///
/// Loop-confined: used only on its loop's thread (see ``SSEDataArena`` for the thread rule
/// of the bytes themselves).
package final class SSEArenaCursor {
    var block: SSEArenaBlock?

    package init() {}

    /// The cursor of `loop` (loop thread only).
    static func on(_ loop: EventLoop) -> SSEArenaCursor {
        loop.local(SSEArenaCursor.self) { SSEArenaCursor() }
    }
}

@available(*, unavailable)
extension SSEArenaCursor: Sendable {}

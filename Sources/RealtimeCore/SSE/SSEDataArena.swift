/// Event data bytes copied out of the receive buffer on the I/O thread, so the `String` for
/// each event can be built later on the consumer's thread (see ``Message``'s deferred text).
///
/// Why: building the `String` on the I/O thread means one `malloc` there per event and the
/// matching `free` on the consumer's thread; glibc then serialises both threads on the I/O
/// thread's arena lock (measured: a third of the I/O thread's time at 128-byte events). An
/// arena holds many events' data, and the strings are allocated and freed by the thread that
/// uses them.
///
/// One arena per batch handed over, so the reference count that every event holds is touched
/// by one thread at a time (a count shared with the next batch bounced its cache line between
/// the cores on every event: 20% fewer events/s at 128 B). The bytes live in an
/// ``SSEArenaBlock``, which successive batches share until it is full.
///
/// **Thread rule:** one producer appends; readers only read byte ranges handed to them
/// through the transport sink's buffer (whose lock orders the writes before the reads), and the
/// producer never writes a byte twice, so appending after a hand-over touches only bytes no
/// reader has been given.
package final class SSEDataArena: @unchecked Sendable {
    @usableFromInline package let block: SSEArenaBlock

    package init(block: SSEArenaBlock) {
        self.block = block
    }

    /// An arena on a block of its own, for callers without a pool.
    package convenience init(capacity: Int) {
        self.init(block: SSEArenaBlock(capacity: capacity))
    }

    /// Appends `data` to the block (producer only); its offset, or nil when it does not fit.
    @inlinable
    package func append(_ data: UnsafeRawBufferPointer) -> Int? {
        block.append(data)
    }
}

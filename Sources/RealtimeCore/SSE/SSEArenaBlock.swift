/// A fixed block of bytes behind ``SSEDataArena``s: filled front to back, never moved, and
/// handed back to its ``SSEArenaPool`` when the last arena on it is released.
///
/// Pooling means a steady stream cycles through a few warm blocks: no page faults, no
/// `munmap` (and its TLB shootdown on the other core), no cross-thread `free` of big blocks
/// (measured before pooling: 6% of the I/O thread's time in page faults at 4 KiB events).
/// See ``SSEDataArena`` for the thread rule.
package final class SSEArenaBlock: @unchecked Sendable {
    /// Start of the block, `capacity` bytes.
    package let base: UnsafeMutableRawPointer
    package let capacity: Int
    /// Bytes used (producer only).
    @usableFromInline package internal(set) var count = 0
    private let pool: SSEArenaPool?

    /// A block of its own, freed with it.
    package init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.base = .allocate(byteCount: self.capacity, alignment: 16)
        self.pool = nil
    }

    init(pooled base: UnsafeMutableRawPointer, capacity: Int, pool: SSEArenaPool) {
        self.base = base
        self.capacity = capacity
        self.pool = pool
    }

    deinit {
        if let pool { pool.recycle(base) } else { base.deallocate() }
    }

    /// Room left, in bytes.
    @inlinable package var available: Int { capacity &- count }

    /// Appends `data` (producer only); returns its offset, or nil when it does not fit.
    @inlinable
    package func append(_ data: UnsafeRawBufferPointer) -> Int? {
        guard data.count <= available else { return nil }
        return appendUnchecked(data)
    }

    /// Appends `data`, which the caller knows fits (`data.count <= available`); its offset.
    @inlinable
    package func appendUnchecked(_ data: UnsafeRawBufferPointer) -> Int {
        let offset = count
        if let source = data.baseAddress, data.count > 0 {
            (base + offset).copyMemory(from: source, byteCount: data.count)
        }
        count = offset &+ data.count
        return offset
    }
}

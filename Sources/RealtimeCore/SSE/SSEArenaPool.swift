
/// Fixed-size ``SSEArenaBlock``s, shared by every SSE connection in the process.
///
/// A block returns here when the last event pointing into it is released (on whichever
/// thread), and the next block taken reuses it, so a stream at any rate cycles through a
/// handful of warm blocks.
/// At most ``maxIdle`` blocks are kept; more are freed, so idle memory is bounded
/// (`blockSize × maxIdle`, 1 MiB for ``shared``) whatever the number of connections.
package final class SSEArenaPool: Sendable {
    /// Bytes per block: the largest event data an arena takes in one piece.
    package let blockSize: Int
    package let maxIdle: Int
    /// Idle blocks, as addresses (a raw pointer is not `Sendable`; the pool owns them).
    private let idle: LockedValue<[UInt]>

    /// The process-wide pool: 32 KiB blocks, at most 32 idle (1 MiB).
    ///
    /// Why 32 KiB: the SSE connections of one event loop fill one current block together
    /// (`SSEArenaCursor` in the SSE module), which stays pinned until it is full and its events
    /// are released, so a quiet loop holds one block, whatever its number of streams. A block
    /// much larger would waste that memory per loop and per consumer that holds on to one
    /// event; much smaller would cost a pool round trip every few events. Bigger event data gets
    /// a block of its own.
    package static let shared = SSEArenaPool(blockSize: 32 * 1024, maxIdle: 32)

    package init(blockSize: Int, maxIdle: Int) {
        self.blockSize = blockSize
        self.maxIdle = maxIdle
        self.idle = LockedValue([])
    }

    deinit {
        idle.withLock { blocks in
            for b in blocks { UnsafeMutableRawPointer(bitPattern: b)?.deallocate() }
        }
    }

    /// An empty block (a reused one when one is idle).
    package func block() -> SSEArenaBlock {
        let reused = idle.withLock { $0.popLast() }.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
        let block = reused ?? .allocate(byteCount: blockSize, alignment: 16)
        return SSEArenaBlock(pooled: block, capacity: blockSize, pool: self)
    }

    /// Number of idle blocks (for tests).
    package var idleCount: Int { idle.withLock { $0.count } }

    func recycle(_ block: UnsafeMutableRawPointer) {
        let address = UInt(bitPattern: block)
        let kept = idle.withLock { blocks -> Bool in
            guard blocks.count < maxIdle else { return false }
            blocks.append(address)
            return true
        }
        if !kept { block.deallocate() }
    }
}

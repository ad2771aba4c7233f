import RealtimeCore

/// The events parsed during one curl action, waiting to go to the channel together (one lock
/// and at most one consumer wake-up per action rather than per write callback), and where
/// their data bytes go until the consumer builds the strings.
///
/// Small data is copied into an ``SSEDataArena`` (one per batch handed over, on a pooled
/// ``SSEArenaBlock`` that successive batches of every connection on the loop share until it
/// is full, see ``SSEArenaCursor``) and decoded later on the consumer's thread; data above ``deferredTextLimit`` is decoded at once, so a huge event
/// is not held twice.
///
/// A value owned by ``SSEConnection`` on its loop thread. The connection swaps it into a local
/// for the duration of a parser feed: appending to a local spares a dynamic exclusivity check
/// per event.
struct SSEEventBatcher {
    /// Events not yet handed to the channel, in stream order.
    var pending: [TransportEvent] = []
    /// Flush early at this many pending events, so a long action cannot overshoot the
    /// channel's capacity by much.
    let flushThreshold: Int
    /// Where the current batch's event data goes; nil after a hand-over.
    private var arena: SSEDataArena?
    /// The loop's current block, filled across batches (and connections) until the next event
    /// does not fit, then replaced by one from the shared pool. nil for the placeholder.
    private let cursor: SSEArenaCursor?
    /// Event data up to this size goes through the arena (measured, same run: 1.5–2× the
    /// events/s at 128 B and 1 KiB, even at 4 KiB); larger data is decoded at once, so a huge
    /// event is not held twice.
    static let deferredTextLimit = 64 * 1024

    /// `channelCapacity` is the channel's; the batch flushes at half of it (at most 64).
    /// `cursor` is the loop's (``SSEArenaCursor/on(_:)``).
    init(channelCapacity: Int, cursor: SSEArenaCursor?) {
        self.flushThreshold = max(1, min(64, channelCapacity / 2))
        self.cursor = cursor
    }

    /// An empty stand-in, swapped in while the real batcher is lent to a parser feed.
    static var placeholder: SSEEventBatcher { SSEEventBatcher(channelCapacity: 0, cursor: nil) }

    /// Whether the batch should go to the channel now rather than at the end of the action.
    var isFull: Bool { pending.count >= flushThreshold }

    /// Adds a server `retry:` hint.
    mutating func appendRetry(milliseconds: Int) {
        pending.append(.retryHint(.milliseconds(milliseconds)))
    }

    /// Adds a dispatched event, copying its borrowed data.
    @inline(__always)
    mutating func append(_ e: SSEParser.BorrowedEvent) {
        if e.data.count <= Self.deferredTextLimit {
            // Built later by the consumer's thread (see SSEDataArena).
            let text = deferredText(e)
            pending.append(.message(Message(deferredText: text, type: e.type, id: e.lastEventID)))
        } else {
            // Large data: one copy straight into its String, not two; its one allocation is
            // rare per byte.
            pending.append(.message(.sse(type: e.type, data: e.decodedData(), id: e.lastEventID)))
        }
    }

    /// The pending events were handed over: they keep their arena, the next batch gets its own
    /// (on the same block while it has room).
    mutating func endBatch() {
        arena = nil
    }

    /// Copies an event's data into the batch's arena, on a fresh block when the current one is
    /// full; data larger than a pooled block gets a block of its own.
    @inline(__always)
    private mutating func deferredText(_ e: SSEParser.BorrowedEvent) -> SSEDeferredText {
        let n = e.data.count
        // The block's own room, not a count kept here: other connections of the loop append
        // to the same block between two of this batch's events.
        if arena == nil || n > arena.unsafelyUnwrapped.block.available { startArena(for: n) }
        // One reference for the event; the room was checked above.
        let target = arena.unsafelyUnwrapped
        let offset = target.block.appendUnchecked(e.data)
        return SSEDeferredText(arena: target, offset: offset, count: n, isValidUTF8: e.isValidUTF8, isASCII: e.isASCII)
    }

    /// A new arena for the rest of the batch, on the current block if `n` bytes fit there, else
    /// on a fresh pooled block; data bigger than a pooled block gets an exact block of its own
    /// (and the next event a new arena on the pooled one).
    private mutating func startArena(for n: Int) {
        let pool = SSEArenaPool.shared
        if n > pool.blockSize {
            arena = SSEDataArena(capacity: n)
            return
        }
        let room: SSEArenaBlock
        if let block = cursor?.block, n <= block.available {
            room = block
        } else {
            room = pool.block()
            cursor?.block = room
        }
        arena = SSEDataArena(block: room)
    }
}

@_spi(Transport) import RealtimeCore

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
    /// Set when the request asked for `TransportEvent.messages(_:)` batches: events are
    /// packed here instead of becoming `Message`s.
    private let packs: Bool
    private var packed = PackedMessagesBuilder()
    /// A packed batch is closed at this many events (or when its block is full).
    private let packedLimit: Int
    /// Event data up to this size goes through the arena (measured, same run: 1.5–2× the
    /// events/s at 128 B and 1 KiB, even at 4 KiB); larger data is decoded at once, so a huge
    /// event is not held twice.
    static let deferredTextLimit = 64 * 1024

    /// `channelCapacity` is the channel's; the batch flushes at half of it (at most 64).
    /// `cursor` is the loop's (``SSEArenaCursor/on(_:)``).
    /// With `packs`, events go into packed ``MessageBatch``es of at most `channelCapacity`
    /// (at least 16) events, one block's worth of data, or one larger event alone.
    init(channelCapacity: Int, cursor: SSEArenaCursor?, packs: Bool = false) {
        self.flushThreshold = max(1, min(64, channelCapacity / 2))
        self.cursor = cursor
        self.packs = packs
        self.packedLimit = max(16, channelCapacity)
    }

    /// An empty stand-in, swapped in while the real batcher is lent to a parser feed.
    static var placeholder: SSEEventBatcher { SSEEventBatcher(channelCapacity: 0, cursor: nil) }

    /// Whether the batch should go to the channel now rather than at the end of the action
    /// (packing: ``packedFlushCount`` batches are closed).
    var isFull: Bool { !packs ? pending.count >= flushThreshold : pending.count >= Self.packedFlushCount }
    /// Closed packed batches handed over together: one lock and at most one consumer wake-up
    /// for up to 128 KiB (measured at 4 KiB events: a wake-up per batch of 8 events cost the
    /// I/O thread more than the packing saved).
    static let packedFlushCount = 4

    /// Whether anything waits to be handed over: pending events, or a packed batch still open.
    var hasPending: Bool { !pending.isEmpty || packed.count > 0 }

    /// Adds a server `retry:` hint.
    mutating func appendRetry(milliseconds: Int) {
        closePacked()
        pending.append(.retryHint(.milliseconds(milliseconds)))
    }

    /// Adds a comment (only when the request asked for them), in order with the events.
    mutating func appendComment(_ text: String) {
        closePacked()
        pending.append(.message(.comment(text)))
    }

    /// Adds a dispatched event, copying its borrowed data.
    @inline(__always)
    mutating func append(_ e: SSEParser.BorrowedEvent) {
        if packs { return pack(e) }
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
        closePacked()
    }

    /// Packs `e` into the open batch; closes the batch first when its block has no room or it
    /// is at its event limit, and at once after an event that needed a block of its own.
    @inline(__always)
    private mutating func pack(_ e: SSEParser.BorrowedEvent) {
        let n = e.data.count
        if packed.count >= packedLimit || (packed.block != nil && n > packed.available) { closePacked() }
        if packed.block == nil { packed.start(on: packingBlock(for: n)) }
        packed.append(e)
        if n > SSEArenaPool.shared.blockSize { closePacked() }
    }

    /// The block a new packed batch starts on: the loop's current one when `n` bytes fit,
    /// else a fresh pooled one (which becomes the loop's), or an exact one for larger data.
    private func packingBlock(for n: Int) -> SSEArenaBlock {
        let pool = SSEArenaPool.shared
        if n > pool.blockSize { return SSEArenaBlock(capacity: n) }
        if let block = cursor?.block, n <= block.available { return block }
        let block = pool.block()
        cursor?.block = block
        return block
    }

    /// Moves the open packed batch, if any, to the pending events.
    private mutating func closePacked() {
        guard packs, let batch = packed.take() else { return }
        pending.append(.messages(batch))
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

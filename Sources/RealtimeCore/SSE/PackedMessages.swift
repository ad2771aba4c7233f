/// The storage of a packed ``MessageBatch``: the events' data in one ``SSEArenaBlock``
/// (filled on the I/O thread, never written again where a batch points), and per event its
/// range, whether it is valid UTF-8, and indexes into the batch's ids and types (kept once
/// per run of equal values, so a stream whose events share an id or a type stores it once).
///
/// Thread rule: as ``SSEDataArena``'s; a batch is handed over through a locked buffer (the
/// transport sink's) and only read afterwards.
package final class PackedMessages: @unchecked Sendable {
    struct Record {
        var offset: Int
        var count: Int
        var id: Int32
        var type: Int32
        var isValidUTF8: Bool
        var isASCII: Bool
    }

    let block: SSEArenaBlock
    let records: [Record]
    let ids: [String]
    let types: [String]
    let byteCount: Int

    init(block: SSEArenaBlock, records: [Record], ids: [String], types: [String], byteCount: Int) {
        self.block = block
        self.records = records
        self.ids = ids
        self.types = types
        self.byteCount = byteCount
    }
}

/// Builds packed ``MessageBatch``es on the producer's thread: the caller picks the block
/// (``start(on:)``) and checks the room before each ``append(_:)``.
package struct PackedMessagesBuilder {
    package private(set) var block: SSEArenaBlock?
    private var records: [PackedMessages.Record] = []
    private var ids: [String] = []
    private var types: [String] = []
    private var bytes = 0

    package init() {}

    /// Events in the batch being built.
    package var count: Int { records.count }

    /// Room left for data in the current block (0 without one).
    package var available: Int { block?.available ?? 0 }

    /// Starts a batch on `block` (the previous one must have been taken).
    package mutating func start(on block: SSEArenaBlock) {
        precondition(records.isEmpty, "a packed batch is taken before the next one starts")
        self.block = block
        // One allocation for a typical batch rather than a regrowth every doubling.
        records.reserveCapacity(32)
    }

    /// Adds a dispatched event, copying its data; the block has room (``available``).
    @inline(__always)
    package mutating func append(_ e: SSEParser.BorrowedEvent) {
        let offset = block.unsafelyUnwrapped.appendUnchecked(e.data)
        // A run of equal ids or types is stored once (`==` is quick on identical storage).
        if ids.isEmpty || ids[ids.count &- 1] != e.lastEventID { ids.append(e.lastEventID) }
        if types.isEmpty || types[types.count &- 1] != e.type { types.append(e.type) }
        records.append(
            PackedMessages.Record(
                offset: offset, count: e.data.count, id: Int32(truncatingIfNeeded: ids.count &- 1),
                type: Int32(truncatingIfNeeded: types.count &- 1), isValidUTF8: e.isValidUTF8, isASCII: e.isASCII))
        bytes &+= e.data.count
    }

    /// The batch built so far (nil when empty); the builder is empty and without a block
    /// afterwards.
    package mutating func take() -> MessageBatch? {
        defer { block = nil }
        guard let block, !records.isEmpty else { return nil }
        let packed = PackedMessages(block: block, records: records, ids: ids, types: types, byteCount: bytes)
        records = []
        ids = []
        types = []
        bytes = 0
        return MessageBatch(packed: packed)
    }
}

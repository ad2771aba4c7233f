#if os(Linux)
@_spi(Transport) import RealtimeCore
@testable import RealtimeSSE
import Testing

/// The batches of several connections of one loop fill one arena block together
/// (``SSEArenaCursor``), and every event keeps its own bytes.
@Suite("SSEEventBatcher", .timeLimit(.minutes(1)))
struct SSEEventBatcherTests {
    /// Parses `text` into `batcher` (the way the connection feeds it).
    static func feed(_ text: String, into batcher: inout SSEEventBatcher) throws {
        var parser = SSEParser()
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBytes { raw in
            try parser.feed(UnsafeRawBufferPointer(raw), { _ in }, borrowing: { batcher.append($0) })
        }
    }

    static func texts(_ batcher: SSEEventBatcher) -> [String] {
        batcher.pending.compactMap { if case .message(let m) = $0 { m.text } else { nil } }
    }

    /// Two connections append in turn within their batches: the second's appends move the
    /// block's end under the first's arena, which must not overwrite them (it did, when the
    /// room left was counted per batcher).
    @Test func interleavedBatchesShareOneBlockAndKeepTheirBytes() throws {
        let cursor = SSEArenaCursor()
        var a = SSEEventBatcher(channelCapacity: 256, cursor: cursor)
        var b = SSEEventBatcher(channelCapacity: 256, cursor: cursor)
        let block = SSEArenaPool.shared.blockSize
        // Each event is a third of a block, so the blocks fill up while both batches run.
        let chunkA = String(repeating: "a", count: block / 3), chunkB = String(repeating: "b", count: block / 3)
        for i in 0..<6 {
            try Self.feed("data: \(i)\(chunkA)\n\n", into: &a)
            try Self.feed("data: \(i)\(chunkB)\n\n", into: &b)
        }
        #expect(Self.texts(a) == (0..<6).map { "\($0)\(chunkA)" })
        #expect(Self.texts(b) == (0..<6).map { "\($0)\(chunkB)" })
    }

    /// A connection whose batch was handed over keeps no block: only the loop's cursor does.
    @Test func aQuietConnectionHoldsNoBlock() throws {
        let cursor = SSEArenaCursor()
        var a = SSEEventBatcher(channelCapacity: 256, cursor: cursor)
        try Self.feed("data: hello\n\n", into: &a)
        a.endBatch()
        a.pending.removeAll()
        weak let block = cursor.block
        #expect(block != nil)
        cursor.block = nil
        #expect(block == nil)
    }
}
#endif

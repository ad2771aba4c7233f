#if os(Linux)
@_spi(Transport) import RealtimeCore
@testable import RealtimeSSE
import Testing

/// Packed batches (``TransportRequest/prefersMessageBatches``): events keep their data, id
/// and type, in order; a batch closes at its event limit, when its block is full, before a
/// `retry:`, and around an event larger than a block.
@Suite("SSEEventBatcher packing", .timeLimit(.minutes(1)))
struct SSEEventBatcherPackingTests {
    static func batches(_ batcher: SSEEventBatcher) -> [MessageBatch] {
        batcher.pending.compactMap { if case .messages(let b) = $0 { b } else { nil } }
    }

    /// Parses `text` into `batcher` as the connection does, `retry:` included.
    static func feed(_ text: String, into batcher: inout SSEEventBatcher) throws {
        var parser = SSEParser()
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { raw in
            try parser.feed(raw, { if case .retry(let ms) = $0 { batcher.appendRetry(milliseconds: ms) } }, borrowing: { batcher.append($0) })
        }
    }

    @Test func eventsKeepTheirDataIDAndTypeInOrder() throws {
        var batcher = SSEEventBatcher(channelCapacity: 256, cursor: SSEArenaCursor(), packs: true)
        try Self.feed("id: 1\ndata: a\n\ndata: b\n\nid: 2\nevent: t\ndata: c\ndata: d\n\n: x\n\ndata: \u{E9}t\u{E9}\n\ndata: \n\n", into: &batcher)
        #expect(batcher.pending.isEmpty, "the batch stays open until the end of the action")
        batcher.endBatch()
        let batches = Self.batches(batcher)
        try #require(batches.count == 1 && batcher.pending.count == 1)
        let batch = batches[0]
        #expect(batch.map(\.text) == ["a", "b", "c\nd", "\u{E9}t\u{E9}", ""])
        #expect(batch.map(\.id) == ["1", "1", "2", "2", "2"])
        #expect(batch.map(\.type) == ["message", "message", "t", "message", "message"])
        #expect(batch.map(\.payloadByteCount) == [1, 1, 3, 5, 0])
        #expect(batch.payloadByteCount == 10)
        #expect(batch.resumeID == "2")
        #expect(batch[2].withUnsafeBytes { Array($0) } == Array("c\nd".utf8))
        #expect(batch.messages == [
            .sse(type: "message", data: "a", id: "1"), .sse(type: "message", data: "b", id: "1"),
            .sse(type: "t", data: "c\nd", id: "2"), .sse(type: "message", data: "\u{E9}t\u{E9}", id: "2"),
            .sse(type: "message", data: "", id: "2"),
        ])
    }

    @Test func invalidUTF8IsKeptAsReceivedAndRepairedAsText() throws {
        var batcher = SSEEventBatcher(channelCapacity: 256, cursor: SSEArenaCursor(), packs: true)
        var parser = SSEParser()
        let bytes: [UInt8] = Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8)
        try bytes.withUnsafeBytes { raw in try parser.feed(raw, { _ in }, borrowing: { batcher.append($0) }) }
        batcher.endBatch()
        let batch = try #require(Self.batches(batcher).first)
        #expect(batch[0].withUnsafeBytes { Array($0) } == [0x61, 0xFF, 0x62])
        #expect(batch[0].text == "a\u{FFFD}b")
    }

    @Test func aBatchClosesAtItsEventLimitAndBeforeARetry() throws {
        var batcher = SSEEventBatcher(channelCapacity: 16, cursor: SSEArenaCursor(), packs: true)
        let forty = (0..<40).map { "data: \($0)\n\n" }.joined()
        try Self.feed(forty + "retry: 5\n\ndata: last\n\n", into: &batcher)
        #expect(batcher.isFull, "four closed batches (or hints) are handed over without waiting for the end of the action")
        batcher.endBatch()
        let kinds: [String] = batcher.pending.map {
            switch $0 {
            case .messages(let b): "\(b.count)"
            case .retryHint: "retry"
            default: "other"
            }
        }
        #expect(kinds == ["16", "16", "8", "retry", "1"])
        #expect(Self.batches(batcher).flatMap { $0.map { $0.text! } } == (0..<40).map { "\($0)" } + ["last"])
    }

    @Test func aFullBlockClosesTheBatchAndALargeEventGoesAlone() throws {
        var batcher = SSEEventBatcher(channelCapacity: 4096, cursor: SSEArenaCursor(), packs: true)
        let block = SSEArenaPool.shared.blockSize
        let third = String(repeating: "x", count: block / 3)
        let big = String(repeating: "y", count: block + 10)
        try SSEEventBatcherTests.feed(
            (0..<4).map { "data: \($0)\(third)\n\n" }.joined() + "data: \(big)\n\ndata: after\n\n", into: &batcher)
        batcher.endBatch()
        let batches = Self.batches(batcher)
        #expect(batches.map(\.count) == [2, 2, 1, 1] || batches.map(\.count) == [3, 1, 1, 1])
        #expect(batches.flatMap { $0.map { $0.text! } } == (0..<4).map { "\($0)\(third)" } + [big, "after"])
        #expect(batches.allSatisfy { $0.payloadByteCount <= block || $0.count == 1 })
    }
}
#endif

import Testing
@testable import RealtimeCore

/// The pooled blocks behind SSE event data: reuse, the idle bound, and bytes that stay put
/// while later events are appended.
@Suite(.timeLimit(.minutes(1))) struct SSEArenaPoolTests {
    @Test func aReleasedBlockIsReusedAndTheIdleCountIsBounded() {
        let pool = SSEArenaPool(blockSize: 256, maxIdle: 2)
        var first: SSEArenaBlock? = pool.block()
        let address = first.map { UInt(bitPattern: $0.base) }
        #expect(pool.idleCount == 0)
        first = nil
        #expect(pool.idleCount == 1)
        let again = pool.block()
        #expect(UInt(bitPattern: again.base) == address, "the idle block is handed out again")
        #expect(again.count == 0 && again.available == 256, "a reused block starts empty")
        #expect(pool.idleCount == 0)
        // Five released at once: two are kept, three are freed.
        var many: [SSEArenaBlock] = (0..<5).map { _ in pool.block() }
        #expect(many.count == 5)
        many.removeAll()
        #expect(pool.idleCount == 2)
        _ = again
    }

    @Test func appendRefusesWhatDoesNotFitAndKeepsEarlierBytes() throws {
        let pool = SSEArenaPool(blockSize: 8, maxIdle: 1)
        let block = pool.block()
        let arena = SSEDataArena(block: block)
        let abc: [UInt8] = Array("abcde".utf8)
        let o1 = try #require(abc.withUnsafeBytes { arena.append($0) })
        #expect(o1 == 0)
        #expect([UInt8]("xyzw".utf8).withUnsafeBytes { arena.append($0) } == nil, "4 bytes do not fit in the 3 left")
        // A second batch on the same block: its bytes follow, the first batch's stay intact.
        let next = SSEDataArena(block: block)
        let o2 = try #require([UInt8]("fgh".utf8).withUnsafeBytes { next.append($0) })
        #expect(o2 == 5)
        #expect(block.available == 0)
        let first = SSEDeferredText(arena: arena, offset: o1, count: 5, isValidUTF8: true, isASCII: true)
        let second = SSEDeferredText(arena: next, offset: o2, count: 3, isValidUTF8: true, isASCII: true)
        #expect(first.string() == "abcde")
        #expect(second.string() == "fgh")
        #expect([UInt8]().withUnsafeBytes { next.append($0) } == 8, "an empty append always fits")
    }

    @Test func theBlockReturnsOnlyWhenItsLastEventIsReleased() throws {
        let pool = SSEArenaPool(blockSize: 64, maxIdle: 4)
        var text: SSEDeferredText?
        do {
            let arena = SSEDataArena(block: pool.block())
            let offset = try #require([UInt8]("héllo".utf8).withUnsafeBytes { arena.append($0) })
            text = SSEDeferredText(arena: arena, offset: offset, count: 6, isValidUTF8: true, isASCII: false)
        }
        #expect(pool.idleCount == 0, "an event still points into the block")
        #expect(text?.string() == "héllo")
        text = nil
        #expect(pool.idleCount == 1)
    }
}

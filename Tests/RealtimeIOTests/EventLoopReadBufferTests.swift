#if os(Linux)
import RealtimeCore
@testable import RealtimeIO
import Testing

/// One receive buffer per loop: every read borrows it, a nested read gets its own, and a
/// larger request replaces it.
@Suite("EventLoop read buffer", .timeLimit(.minutes(1)))
struct EventLoopReadBufferTests {
    @Test func readsShareOneBufferAndANestedReadGetsItsOwn() async {
        let loop = EventLoop(name: "t-readbuf")
        defer { loop.shutdown() }
        let result: (same: Bool, nestedDistinct: Bool, grown: Int) = await withCheckedContinuation { done in
            loop.execute {
                let first = loop.withReadBuffer(minimum: 4096) { UInt(bitPattern: $0.baseAddress) }
                var nested: UInt = 0
                let second = loop.withReadBuffer(minimum: 1024) { outer -> UInt in
                    nested = loop.withReadBuffer(minimum: 1024) { UInt(bitPattern: $0.baseAddress) }
                    return UInt(bitPattern: outer.baseAddress)
                }
                let grown = loop.withReadBuffer(minimum: 1 << 20) { $0.count }
                done.resume(returning: (first == second, nested != second, grown))
            }
        }
        #expect(result.same)
        #expect(result.nestedDistinct)
        #expect(result.grown == 1 << 20)
    }
}
#endif

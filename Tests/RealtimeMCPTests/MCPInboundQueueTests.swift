import Foundation
@testable import RealtimeMCP
@_spi(Transport) import RealtimeCore
import Testing

/// The bounded queue between the transport's streams and its one reader.
@Suite("MCP inbound queue", .timeLimit(.minutes(1)))
struct MCPInboundQueueTests {
    static func message(_ n: Int) -> MCPInbound { MCPInbound(.number(Double(n))) }

    @Test("the producer is told to pause at the capacity, and nothing is dropped")
    func pausesAtTheCapacity() async throws {
        let queue = MCPInboundQueue(capacity: 4)
        #expect((0..<3).allSatisfy { queue.send(Self.message($0)) == nil })
        #expect(queue.send(Self.message(3)) != nil)
        #expect(queue.send(Self.message(4)) != nil, "a message sent while paused is kept, and pauses again")
        queue.finish()
        var values: [JSONValue] = []
        for await m in queue.channel { values.append(m.value) }
        #expect(values == (0...4).map { .number(Double($0)) })
    }

    @Test("a waiting producer goes on once the reader has caught up to half the capacity")
    func waitEndsWhenTheReaderCatchesUp() async throws {
        let queue = MCPInboundQueue(capacity: 4)
        for n in 0..<3 { queue.send(Self.message(n)) }
        let pause = try #require(queue.send(Self.message(3)))
        let waiter = Task { await queue.waitForRoom(pause) }
        await queue.untilAPumpWaits()
        for _ in 0..<3 { _ = await queue.channel.next() }
        await waiter.value
        #expect(queue.channel.bufferedCount == 1)
    }

    @Test("room made between the pause and the wait is not missed")
    func roomBeforeTheWaitIsSeen() async throws {
        let queue = MCPInboundQueue(capacity: 2)
        queue.send(Self.message(0))
        let pause = try #require(queue.send(Self.message(1)))
        _ = await queue.channel.next()
        _ = await queue.channel.next()
        await queue.waitForRoom(pause)  // returns at once: the demand came before the wait
    }

    @Test("finishing, or the reader leaving, releases every waiting producer")
    func endReleasesWaiters() async throws {
        for readerLeaves in [false, true] {
            let queue = MCPInboundQueue(capacity: 1)
            let pause = try #require(queue.send(Self.message(0)))
            let waiters = (0..<3).map { _ in Task { await queue.waitForRoom(pause) } }
            await queue.untilAPumpWaits()
            if readerLeaves { queue.channel.terminate() } else { queue.finish() }
            for waiter in waiters { await waiter.value }
            await queue.waitForRoom(pause)  // and later waits return at once
        }
    }
}

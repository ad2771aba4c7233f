import Realtime
import Testing

/// close(), cancellation and leaving the loop stop everything; send goes to the live transport.
@Suite struct RealtimeClientLifecycleTests {
    @Test func closeCancelsTheBackoffTimer() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.fail(RealtimeError(.network))
        await rec.waitFor(1)
        await eventually("a backoff timer") { t.clock.sleeperCount == 1 }
        t.client.close()
        #expect(t.clock.sleeperCount == 0, "close() must cancel the timer synchronously")
        await rec.waitUntilFinished()
        t.clock.advance(by: .seconds(3600))
        for _ in 0..<1000 { await Task.yield() }
        #expect(t.factory.count == 1, "no attempt after close()")
        #expect(t.clock.sleeperCount == 0)
    }

    @Test func closeEndsTheLiveConnection() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        await rec.waitFor(2)
        t.client.close()
        #expect(first.closed)
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a)", "no event after close()")
        #expect(t.factory.count == 1)
        await #expect(throws: RealtimeError.self) { try await t.client.send(.text("x")) }
    }

    @Test func cancellingTheConsumerStopsEverything() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        rec.cancel()
        await eventually("the transport to close") { first.closed }
        await rec.waitUntilFinished()
        #expect(t.clock.sleeperCount == 0)
        for _ in 0..<1000 { await Task.yield() }
        #expect(t.factory.count == 1)
    }

    @Test func leavingTheLoopClosesTheClient() async throws {
        let t = try TestClient()
        let consumer = Task {
            for await event in t.client.events {
                if case .event = event { break }
            }
        }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("only")
        await consumer.value
        await eventually("the transport to close") { first.closed }
        #expect(t.clock.sleeperCount == 0)
    }

    @Test func closeBeforeIteratingEndsTheStream() async throws {
        let t = try TestClient()
        t.client.close()
        var it = t.client.events.makeAsyncIterator()
        #expect(await it.next() == nil)
        #expect(t.factory.count == 0)
    }

    @Test func aSecondIteratorEndsAtOnce() async throws {
        let t = try TestClient()
        var first = t.client.events.makeAsyncIterator()
        var second = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        #expect(await second.next() == nil)
        let transport = try #require(await t.factory.transport(0))
        transport.open()
        #expect(await first.next()?.short == "open(1)")
    }

    @Test func sendGoesToTheLiveWebSocket() async throws {
        let t = try TestClient("ws://127.0.0.1:8080/chat")
        await #expect(throws: RealtimeError(.notConnected)) { try await t.client.send(.text("early")) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        try await t.client.send(.text("hello"))
        try await t.client.send(.binary([1, 2]))
        #expect(first.sent == [.text("hello"), .binary([1, 2])])
        first.endCleanly(code: 1001)
        let events = await rec.waitFor(2)
        #expect(events[1].closeEvent == CloseEvent(clean: true, code: 1001, willReconnect: true))
    }

    @Test func sendOnSSEIsNotSupported() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        await #expect(throws: RealtimeError(.sendNotSupported)) { try await t.client.send(.text("x")) }
    }
}

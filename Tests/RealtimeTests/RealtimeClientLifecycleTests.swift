import Realtime
import Testing

/// close(), cancellation and leaving the loop stop everything; send goes to the live transport.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientLifecycleTests {
    /// `for await` on the main actor: buffered events are served on the caller's executor
    /// (no hop per event), in order, and the cursor still advances as events are taken.
    @MainActor @Test func consumingOnTheMainActor() async throws {
        let t = try TestClient()
        defer { t.client.close() }
        // What `for await` on the main actor calls.
        var it = t.client.events.makeAsyncIterator()
        let first = try #require(await t.factory.transport(0))
        first.open()
        for i in 0..<50 { first.message("\(i)", id: "\(i)") }
        var seen: [String] = []
        while seen.count < 51, let event = await it.next(isolation: #isolation) {
            MainActor.assertIsolated()
            seen.append(event.short)
        }
        #expect(seen == ["open(1)"] + (0..<50).map { "event(\($0))" })
    }

    @Test func closeCancelsTheBackoffTimer() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.fail(RealtimeError(.network))
        await rec.waitFor(1)
        await t.clock.waitForSleepers(1)
        t.client.close()
        #expect(t.clock.sleeperCount == 0, "close() must cancel the timer synchronously")
        #expect(t.client.state == .closed(.cancelled))
        await rec.waitUntilFinished()
        t.clock.advance(by: .seconds(3600))
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
        await first.waitUntilClosed()
        await rec.waitUntilFinished()
        #expect(t.clock.sleeperCount == 0)
        #expect(t.client.state == .closed(.cancelled))
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
        #expect(first.closed, "leaving the loop closed the client at once")
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
        #expect(events.at(1)?.closeEvent == CloseEvent(clean: true, code: 1001, willReconnect: true))
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

    @Test func suspendClosesAndResumeReconnectsAtOnceWithTheCursor() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        await rec.waitFor(2)
        t.client.suspend()
        #expect(t.client.isSuspended)
        #expect(first.closed)
        let events = await rec.waitFor(3)
        #expect(events.at(2)?.closeEvent == CloseEvent(clean: true, willReconnect: true))
        #expect(t.client.state == .suspended)
        #expect(t.factory.count == 1, "no attempt while suspended")
        #expect(t.clock.sleeperCount == 0, "no timer while suspended")
        #expect(rec.finished == false, "suspend does not end the events")
        t.client.resume()
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "1")
        #expect(t.clock.sleeperCount == 0, "resume connects at once")
    }

    @Test func suspendCancelsTheBackoffTimer() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.fail(RealtimeError(.network))
        await rec.waitFor(1)
        await t.clock.waitForSleepers(1)
        t.client.suspend()
        #expect(t.clock.sleeperCount == 0, "suspend() cancels the timer")
        t.clock.advance(by: .seconds(60))
        #expect(t.client.state == .suspended)
        #expect(t.factory.count == 1)
        t.client.resume()
        #expect(await t.factory.transport(1) != nil)
    }

    @Test func resumeStartsAFreshBackoff() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        for i in 0..<3 {
            let tr = try #require(await t.factory.transport(i))
            tr.fail(RealtimeError(.network))
            if i < 2 { await t.advance(by: .seconds(1 << i)) }
        }
        await rec.waitFor(3)
        t.client.suspend()
        t.client.resume()
        let fourth = try #require(await t.factory.transport(3))
        fourth.fail(RealtimeError(.network))
        let events = await rec.waitFor(4)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(2), .seconds(4), .seconds(1)])
    }

    @Test func suspendBeforeIteratingWaitsForResume() async throws {
        let t = try TestClient()
        t.client.suspend()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("suspended") { $0 == .suspended }
        #expect(t.factory.count == 0)
        t.client.resume()
        #expect(await t.factory.transport(0) != nil)
        _ = rec
    }
}

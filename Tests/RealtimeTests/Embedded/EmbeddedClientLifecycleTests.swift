#if os(Linux)
import Foundation
import Realtime
import RealtimeTesting
import Testing

/// close(), cancellation and leaving the loop stop everything; suspend and resume; send goes
/// to the live WebSocket. The production transports on the embedded stack.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientLifecycleTests {
    /// The first attempt's server, reset before it answered.
    static func resetFirst(_ t: EmbeddedClient) async throws -> EmbeddedSSEServer {
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.sse(0))
        first.reset()
        return first
    }

    /// `for await` on the main actor: buffered events are served on the caller's executor
    /// (no hop per event), in order, and the cursor still advances as events are taken.
    @MainActor @Test func consumingOnTheMainActor() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        // What `for await` on the main actor calls.
        var it = t.client.events.makeAsyncIterator()
        let first = try await t.openedSSE()
        for i in 0..<50 { first.event("\(i)", id: "\(i)") }
        var seen: [String] = []
        while seen.count < 51, let event = await it.next(isolation: #isolation) {
            MainActor.assertIsolated()
            seen.append(event.short)
        }
        #expect(seen == ["open(1)"] + (0..<50).map { "event(\($0))" })
    }

    @Test func closeCancelsTheBackoffTimer() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        _ = try await Self.resetFirst(t)
        await rec.waitFor(1)
        await t.waitForTheBackoff()
        #expect(t.loop.pendingTimerCount == 1)
        t.client.close()
        #expect(t.loop.pendingTimerCount == 0, "close() cancels the timer synchronously")
        #expect(t.client.state == .closed(.cancelled))
        await rec.waitUntilFinished()
        t.advance(by: .seconds(3600))
        #expect(t.connectionCount == 1, "no attempt after close()")
    }

    @Test func closeDropsBufferedEventsAndDeliversNothingMore() async throws {
        let t = try EmbeddedClient()
        var events = t.client.events.makeAsyncIterator()
        let first = try await t.openedSSE()
        for (i, text) in ["a", "b", "c"].enumerated() { first.event(text, id: "\(i + 1)") }
        #expect(await events.next()?.short == "open(1)")
        #expect(await events.next()?.short == "event(a)")
        // b and c wait in the client's buffer: the consumer has not asked for them.
        t.client.close()
        first.event("d", id: "4")
        #expect(await events.next() == nil, "nothing after close(), not even what was buffered")
        #expect(t.client.lastEventID == "1", "asking for more processed a; b and c were never handed over")
        t.run()
        #expect(first.ended)
    }

    @Test func closeEndsTheLiveConnection() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        await rec.waitFor(2)
        t.client.close()
        t.run()
        #expect(first.ended)
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(a)", "no event after close()")
        #expect(t.connectionCount == 1)
        await #expect(throws: RealtimeError.self) { try await t.client.send(.text("x")) }
    }

    @Test func cancellingTheConsumerStopsEverything() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        await rec.waitFor(1)
        rec.cancel()
        await rec.waitUntilFinished()
        await t.waitForState("closed") { if case .closed = $0 { true } else { false } }
        #expect(first.ended)
        #expect(t.loop.pendingTimerCount == 0)
        #expect(t.client.state == .closed(.cancelled))
        #expect(t.connectionCount == 1)
    }

    @Test func leavingTheLoopClosesTheClient() async throws {
        let t = try EmbeddedClient()
        let consumer = Task {
            for await event in t.client.events {
                if case .event = event { break }
            }
        }
        let first = try await t.openedSSE()
        first.event("only")
        await consumer.value
        t.run()
        #expect(first.ended, "leaving the loop closed the client at once")
        #expect(t.loop.pendingTimerCount == 0)
    }

    @Test func closeBeforeIteratingEndsTheStream() async throws {
        let t = try EmbeddedClient()
        t.client.close()
        var it = t.client.events.makeAsyncIterator()
        #expect(await it.next() == nil)
        t.run()
        #expect(t.connectionCount == 0)
    }

    @Test func aSecondIteratorEndsAtOnce() async throws {
        let t = try EmbeddedClient()
        var first = t.client.events.makeAsyncIterator()
        var second = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        #expect(await second.next() == nil)
        _ = try await t.openedSSE()
        #expect(await first.next()?.short == "open(1)")
    }

    /// `consume` runs once per client: a second one returns at once, handling nothing, and
    /// the first goes on.
    @Test func aSecondConsumeReturnsAtOnce() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let handled = Observed<[String]>([])
        let first = Task { [client = t.client] in
            try await client.consume { event, _ in handled.update { $0.append(event.short) } }
        }
        let server = try await t.openedSSE()
        try await t.client.consume { event, _ in Issue.record("the second consume handled \(event.short)") }
        server.event("after")
        await handled.wait("the first consume's two events") { $0.count == 2 }
        #expect(handled.value == ["open(1)", "event(after)"])
        t.client.close()
        try await first.value
    }

    @Test func sendGoesToTheLiveWebSocket() async throws {
        let t = try EmbeddedClient("ws://peer.test/chat")
        await #expect(throws: RealtimeError(.notConnected)) { try await t.client.send(.text("early")) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        let first = try #require(t.webSocket(0))
        first.accept()
        await rec.waitFor(1)
        try await t.client.send(.text("hello"))
        try await t.client.send(.text("world"))
        t.run()
        #expect(first.texts == ["hello", "world"])
        first.close(code: 1001)
        let events = await rec.waitFor(2)
        let close = try #require(events.at(1)?.closeEvent)
        #expect(close.clean && close.code == 1001 && close.willReconnect, "\(close)")
    }

    @Test func sendOnSSEIsNotSupported() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        _ = try await t.openedSSE()
        await rec.waitFor(1)
        await #expect(throws: RealtimeError(.sendNotSupported)) { try await t.client.send(.text("x")) }
    }

    @Test func suspendClosesAndResumeReconnectsAtOnceWithTheCursor() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        await rec.waitFor(2)
        t.client.suspend()
        #expect(t.client.isSuspended)
        t.run()
        #expect(first.ended)
        let events = await rec.waitFor(3)
        #expect(events.at(2)?.closeEvent == CloseEvent(clean: true, willReconnect: true))
        #expect(t.client.state == .suspended)
        #expect(t.connectionCount == 1, "no attempt while suspended")
        #expect(t.loop.pendingTimerCount == 0, "no timer while suspended")
        #expect(rec.finished == false, "suspend does not end the events")
        t.client.resume()
        await t.network.waitForTransport(1)
        let second = try #require(t.sse(1))
        #expect(second.request.lastEventID == "1")
    }

    @Test func suspendCancelsTheBackoffTimer() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        _ = try await Self.resetFirst(t)
        await rec.waitFor(1)
        await t.waitForTheBackoff()
        t.client.suspend()
        #expect(t.loop.pendingTimerCount == 0, "suspend() cancels the timer synchronously")
        t.advance(by: .seconds(60))
        #expect(t.client.state == .suspended)
        #expect(t.connectionCount == 1)
        t.client.resume()
        await t.network.waitForTransport(1)
        #expect(t.sse(1) != nil)
    }

    @Test func resumeStartsAFreshBackoff() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        for attempt in 1...3 {
            await t.waitForState("attempt \(attempt)") { $0 == .connecting(attempt: attempt) }
            try #require(t.sse(attempt - 1)).reset()
            if attempt < 3 { await t.waitOutTheBackoff() }
        }
        await rec.waitFor(3)
        t.client.suspend()
        t.client.resume()
        await t.network.waitForTransport(3)
        try #require(t.sse(3)).reset()
        let events = await rec.waitFor(4)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(2), .seconds(4), .seconds(1)])
    }

    @Test func suspendBeforeIteratingWaitsForResume() async throws {
        let t = try EmbeddedClient()
        t.client.suspend()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("suspended") { $0 == .suspended }
        #expect(t.connectionCount == 0)
        t.client.resume()
        await t.network.waitForTransport(0)
        #expect(t.sse(0) != nil)
        _ = rec
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// What `consume`, `break` and `ConsumeContext.stop()` do to the resume cursor, over the
/// production SSE connection on the embedded stack: an event is processed exactly when its
/// handler returns normally (then the cursor covers it and the store saves it), never when
/// the handler throws or the loop breaks before asking for the next event.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientConsumeTests {
    struct HandlerFailed: Error {}

    /// A client whose cursor store records every save, its first attempt answered with events
    /// `a` (id 1), `b` (id 2) and `c` (id 3).
    static func client() async throws -> (EmbeddedClient, LockedValue<[String]>) {
        let saved = LockedValue<[String]>([])
        let t = try EmbeddedClient {
            $0.cursorStore = CursorStore(load: { nil }, save: { id in saved.withLock { $0.append(id) } })
        }
        return (t, saved)
    }

    /// Plays `a`, `b`, `c` on the first attempt once the consumer is running.
    static func play(_ t: EmbeddedClient) async throws -> EmbeddedSSEServer {
        let first = try await t.openedSSE()
        for (i, text) in ["a", "b", "c"].enumerated() { first.event(text, id: "\(i + 1)") }
        return first
    }

    /// `stop()` ends the consumption once the handler returns: the event counts as processed
    /// (the cursor covers it and the store saved it), the client is closed, `consume`
    /// returns, and nothing after it is handled.
    @Test func stopProcessesTheEventThenClosesTheClient() async throws {
        let (t, saved) = try await Self.client()
        let handled = LockedValue<[String]>([])
        let consumer = Task { [client = t.client] in
            try await client.consume { event, context in
                guard let text = event.message?.text else { return }
                handled.withLock { $0.append(text) }
                if text == "b" { context.stop() }
            }
        }
        let first = try await Self.play(t)
        try await t.pumping { await consumer.result }.get()
        #expect(handled.withLock { $0 } == ["a", "b"])
        #expect(saved.withLock { $0 } == ["1", "2"])
        #expect(t.client.lastEventID == "2")
        #expect(t.client.state == .closed(.cancelled), "closed as by close()")
        t.run()
        #expect(first.ended && t.connectionCount == 1)
    }

    /// A handler that throws leaves its event unprocessed: the cursor stays on the event
    /// before, nothing more is saved, and `consume` rethrows (the default `.stop`).
    @Test func aThrowingHandlerLeavesItsEventUnprocessed() async throws {
        let (t, saved) = try await Self.client()
        let consumer = Task { [client = t.client] in
            try await client.consume { event in
                if event.message?.text == "b" { throw HandlerFailed() }
            }
        }
        _ = try await Self.play(t)
        let result = await t.pumping { await consumer.result }
        #expect(throws: HandlerFailed.self) { try result.get() }
        #expect(t.client.lastEventID == "1")
        #expect(saved.withLock { $0 } == ["1"])
    }

    /// `stop()` followed by a throw: the error wins, and the event is not processed.
    @Test func stopThenAThrowLeavesTheEventUnprocessed() async throws {
        let (t, saved) = try await Self.client()
        let consumer = Task { [client = t.client] in
            try await client.consume { event, context in
                guard event.message?.text == "b" else { return }
                context.stop()
                throw HandlerFailed()
            }
        }
        _ = try await Self.play(t)
        let result = await t.pumping { await consumer.result }
        #expect(throws: HandlerFailed.self) { try result.get() }
        #expect(t.client.lastEventID == "1")
        #expect(saved.withLock { $0 } == ["1"])
    }

    /// Leaving `for await` with `break` before asking for the next event leaves the event it
    /// broke on unprocessed (no `acknowledge()`), and closes the client.
    @Test func breakWithoutAcknowledgeLeavesTheEventUnprocessed() async throws {
        let (t, saved) = try await Self.client()
        let consumer = Task { [client = t.client] in
            for await event in client.events where event.message?.text == "b" { break }
        }
        _ = try await Self.play(t)
        await t.pumping { await consumer.value }
        #expect(t.client.lastEventID == "1")
        #expect(saved.withLock { $0 } == ["1"])
        #expect(t.client.state == .closed(.cancelled))
    }

    /// When the client gives up, `consume` returns normally after handing over the last
    /// error (its `willRetry` false): the failure is in the events, not thrown.
    @Test func consumeReturnsWhenTheClientGivesUp() async throws {
        let t = try EmbeddedClient()
        let handled = LockedValue<[String]>([])
        let consumer = Task { [client = t.client] in
            try await client.consume { event in handled.withLock { $0.append(event.short) } }
        }
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(1), 404)
        try await t.pumping { await consumer.result }.get()
        #expect(handled.withLock { $0 } == ["error(http_status,stop)"], "no connection opened, so no close")
    }

    /// `consume`'s closure runs on the caller's actor.
    @MainActor @Test func theHandlerRunsOnTheCallersActor() async throws {
        let t = try EmbeddedClient()
        var seen: [String] = []
        let server = Task {
            let first = try await t.openedSSE()
            first.event("a", id: "1")
            first.event("b", id: "2")
        }
        try await t.client.consume { event, context in
            MainActor.assertIsolated()
            seen.append(event.short)
            if event.message?.text == "b" { context.stop() }
        }
        try await server.value
        #expect(seen == ["open(1)", "event(a)", "event(b)"])
        #expect(t.client.lastEventID == "2")
    }
}
#endif

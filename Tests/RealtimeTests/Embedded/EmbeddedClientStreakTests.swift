#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// What a backoff streak is, through the production SSE connection on the embedded stack:
/// `maxAttempts` counts attempts without a stable connection (an open that does not last
/// included), `resetAfter` decides when a connection is stable, the circuit breaker counts
/// short-lived clean ends and opens again after every threshold, a clean end is final with
/// `.finite`, and no delay is shorter than the floor.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientStreakTests {
    /// Answers attempt `attempt` with an event stream and cuts it at once.
    static func openThenCut(_ t: EmbeddedClient, _ attempt: Int) async throws {
        let server = try await t.sseAttempt(attempt)
        server.respond()
        server.reset()
    }

    /// The error events' `retryIn`, once attempt `count` reported its error (one per attempt).
    static func delays(_ rec: EventRecorder, _ count: Int) async -> [Duration?] {
        await rec.waitFor("the error of attempt \(count)") { $0.errorEvent?.attempt == count }
        return rec.events.compactMap(\.errorEvent).map(\.retryIn)
    }

    /// `maxAttempts` counts consecutive attempts without a *stable* connection: one that
    /// opened and dropped before `resetAfter` still counts.
    @Test func anOpenThatDoesNotLastStillSpendsAnAttempt() async throws {
        let t = try EmbeddedClient { $0.reconnect = .limited(maxAttempts: 2) }
        let rec = EventRecorder(t.client)
        try await Self.openThenCut(t, 1)
        await t.waitOutTheBackoff()
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(2), 503)
        await rec.waitUntilFinished()
        let last = try #require(rec.events.compactMap(\.errorEvent).last)
        #expect(last.error.code == .retriesExhausted && !last.willRetry)
        #expect(t.connectionCount == 2)
    }

    /// A stable connection (open `resetAfter`, 10 s) that drops spends no attempt:
    /// `maxAttempts: 1` still reconnects once after it, and gives up when that attempt fails.
    @Test func aStableConnectionThatDropsSpendsNoAttempt() async throws {
        let t = try EmbeddedClient { $0.reconnect = .limited(maxAttempts: 1) }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        await rec.waitFor(1)
        t.advance(by: .seconds(10))
        first.event("tick")
        first.reset()
        await t.waitOutTheBackoff()
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(2), 503)
        await rec.waitUntilFinished()
        let errors = rec.events.compactMap(\.errorEvent)
        #expect(errors.map(\.willRetry) == [true, false], "\(rec.summary)")
        #expect(errors.last?.error.code == .retriesExhausted)
        #expect(errors.last?.error.underlying?.status == 503)
        #expect(t.connectionCount == 2)
    }

    /// Opens shorter than `resetAfter` (default 10 s) do not reset the backoff: a server that
    /// accepts and drops every connection at once gets growing delays.
    @Test func opensShorterThanResetAfterKeepGrowingTheDelay() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        for attempt in 1...3 {
            try await Self.openThenCut(t, attempt)
            if attempt < 3 { await t.waitOutTheBackoff() }
        }
        #expect(await Self.delays(rec, 3) == [.seconds(1), .seconds(2), .seconds(4)])
    }

    /// The circuit breaker's streak counts clean ends of connections shorter than
    /// `resetAfter`: a server that closes every stream at once trips it like one that fails.
    @Test func shortCleanEndsTripTheCircuitBreaker() async throws {
        let t = try EmbeddedClient { $0.reconnect.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60)) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.finish()
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        second.respond()
        second.finish()
        await rec.waitFor("circuit_open") { $0.errorEvent?.error.code == .circuitOpen }
        let open = try #require(rec.events.compactMap(\.errorEvent).last)
        #expect(open.willRetry && open.retryIn == .seconds(60))
        #expect(await t.waitForTheBackoff() == .seconds(60))
    }

    /// The breaker waits its cool-down after *every* threshold in one streak; between, the
    /// backoff goes on from where the streak is.
    @Test func theCircuitBreakerOpensAgainAfterEveryThreshold() async throws {
        let t = try EmbeddedClient { $0.reconnect.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60)) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        for attempt in 1...4 {
            EmbeddedClientPolicyTests.answer(try await t.sseAttempt(attempt), 500)
            await t.waitOutTheBackoff()
        }
        let delays = await Self.delays(rec, 4)
        #expect(delays == [.seconds(1), .seconds(60), .seconds(4), .seconds(60)], "\(rec.summary)")
        #expect(rec.events.compactMap(\.errorEvent).map(\.error.code) == [.httpStatus, .circuitOpen, .httpStatus, .circuitOpen])
    }

    /// With `.finite` a clean end is the end: no reconnect, no error, the client closes.
    @Test func aCleanEndIsFinalWhenTheStreamIsFinite() async throws {
        let t = try EmbeddedClient { $0.reconnect = .finite }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("last", id: "1")
        first.finish()
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(last) closed(final)")
        t.run()
        #expect(t.connectionCount == 1)
        #expect(t.loop.pendingTimerCount == 0)
    }

    /// No delay is shorter than the 100 ms floor: a server that sends `retry: 0` and fails is
    /// not retried in a tight loop.
    @Test func aRetryOfZeroIsRaisedToTheFloor() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.openedSSE()
        first.send("retry: 0\n\n")
        first.reset()
        #expect(await Self.delays(rec, 1) == [.milliseconds(100)])
        let delay = try #require(await t.waitForTheBackoff())
        t.advance(by: delay - .milliseconds(1))
        #expect(t.connectionCount == 1, "not before the floor")
        t.advance(by: .milliseconds(1))
        EmbeddedClientPolicyTests.answer(try await t.sseAttempt(2), 500)
        let delays = await Self.delays(rec, 2)
        #expect(delays.allSatisfy { ($0 ?? .zero) >= .milliseconds(100) }, "\(delays)")
    }
}
#endif

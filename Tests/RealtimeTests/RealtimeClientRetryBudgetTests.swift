import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import Testing

/// The shared retry budget paces reconnections (not first attempts) across clients.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientRetryBudgetTests {
    @Test func reconnectionsWaitForATokenFirstAttemptsDoNot() async throws {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 1, perSecond: 1, clock: clock)
        let t = try TestClient("http://127.0.0.1:9/s", clock: clock) {
            $0.backoff = .immediate
            $0.retryBudget = budget
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        try #require(await t.factory.transport(0)).fail(RealtimeError(.network))
        // The one token in the bucket: the first reconnection goes after its 100 ms backoff.
        #expect(await rec.waitFor(1).at(0)?.errorEvent?.retryIn == .milliseconds(100))
        await t.advance(by: .milliseconds(100))
        try #require(await t.factory.transport(1)).fail(RealtimeError(.network))
        // The second waits for the refill, about a second later, not for its backoff.
        let wait = try #require(await rec.waitFor(2).at(1)?.errorEvent?.retryIn)
        #expect(wait > .milliseconds(800), "the budget's slot, not the 100 ms backoff")
        await t.advance(by: wait - .milliseconds(1))
        #expect(clock.sleeperCount == 1, "still waiting")
        #expect(t.factory.count == 2)
        clock.advance(by: .milliseconds(1))
        #expect(await t.factory.transport(2) != nil)
    }

    @Test func manyClientsShareOneBudget() async throws {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 2, perSecond: 2, clock: clock)
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .immediate
        configuration.retryBudget = budget
        let starts = Observed(0)
        let clients: [(RealtimeClient, MockTransportFactory, EventRecorder)] = try (0..<6).map { _ in
            let f = MockTransportFactory(sharedStarts: starts)
            let c = try RealtimeClient(
                url: URL(string: "http://127.0.0.1:9/s")!, configuration: configuration, clock: clock,
                random: SeededGenerator(seed: 1), transportFactory: f.make)
            return (c, f, EventRecorder(c))
        }
        defer { for (c, _, _) in clients { c.close() } }
        // Every client connects once (unpaced), then the server "restarts".
        for (_, f, _) in clients { try #require(await f.transport(0)).fail(RealtimeError(.network)) }
        // Six first connections; the six reconnects book their slots at once: two (the
        // burst) after the 100 ms backoff, then one every 0.5 s.
        await clock.waitForSleepers(6)
        clock.advance(by: .milliseconds(100))
        await starts.wait("two reconnects after the backoff") { $0 == 8 }
        clock.advance(by: .milliseconds(500))
        await starts.wait("a third 0.5 s later") { $0 == 9 }
        clock.advance(by: .milliseconds(500))
        await starts.wait("a fourth 1 s later") { $0 == 10 }
        await clock.waitForSleepers(2)
        #expect(starts.value == 10, "no more than rate × time + burst")
        clock.advance(by: .seconds(1))
        await starts.wait("all six by 2 s") { $0 == 12 }
    }
}

/// `retryIn` is the real delay: the backoff, or the later slot the shared budget gave.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientRetryBudgetDelayTests {
    @Test func retryInIncludesTheBudgetWait() async throws {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 1, perSecond: 0.25, clock: clock)  // one per 4 s
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(initial: .seconds(1), multiplier: 1, maximum: .seconds(1), jitter: .full)
        configuration.retryBudget = budget
        let factory = MockTransportFactory()
        let client = try RealtimeClient(
            url: URL(string: "http://127.0.0.1:9/s")!, configuration: configuration, clock: clock,
            random: SeededGenerator(seed: 7), transportFactory: factory.make)
        let rec = EventRecorder(client)
        defer { client.close() }

        // First failure: the budget has its token, so retryIn is the (jittered) backoff.
        try #require(await factory.transport(0)).fail(RealtimeError(.network))
        let first = try #require(await rec.waitFor(1).at(0)?.errorEvent?.retryIn)
        #expect(first > .zero && first <= .seconds(1), "full jitter within the 1 s backoff")
        await clock.waitForSleepers(1)
        clock.advance(by: first)
        // Second failure at once: the next slot is 4 s after the first, not the backoff.
        try #require(await factory.transport(1)).fail(RealtimeError(.network))
        let second = try #require(await rec.waitFor(2).at(1)?.errorEvent?.retryIn)
        #expect(second == .seconds(4) - first, "the budget's slot, 4 s after the first reconnect")
        // And the attempt really happens then: not a moment before.
        await clock.waitForSleepers(1)
        clock.advance(by: second - .milliseconds(1))
        #expect(clock.sleeperCount == 1, "the budget-extended timer still waits")
        #expect(factory.count == 2, "no attempt before the reported retryIn")
        clock.advance(by: .milliseconds(1))
        #expect(await factory.transport(2) != nil, "the attempt at exactly retryIn")
    }

    @Test func retryInIsTheBackoffWhenTheBudgetHasRoom() async throws {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 10, perSecond: 10, clock: clock)
        let t = try TestClient("http://127.0.0.1:9/s", clock: clock) {
            $0.retryBudget = budget
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        try #require(await t.factory.transport(0)).fail(RealtimeError(.network))
        #expect(await rec.waitFor(1).at(0)?.errorEvent?.retryIn == .seconds(1))
    }
}

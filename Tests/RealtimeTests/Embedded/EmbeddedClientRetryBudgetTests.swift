#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The shared retry budget over production SSE connections on the embedded stack, the loop
/// the clock of the clients and of the budget: it paces reconnections (not first attempts)
/// across clients, and `retryIn` is the real delay, the backoff or the later slot it gave.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientRetryBudgetTests {
    @Test func reconnectionsWaitForATokenFirstAttemptsDoNot() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        let budget = RetryBudget(burst: 1, perSecond: 1, clock: network.loop)
        let client = try Self.client(network, budget, backoff: .immediate)
        defer { client.close() }
        let rec = EventRecorder(client)
        try await Self.answered(network, 0).reset()
        // The one token in the bucket: the first reconnection goes after its 100 ms backoff.
        #expect(await rec.waitFor(2).at(1)?.errorEvent?.retryIn == .milliseconds(100))
        await Self.waitForTheBackoff(network, client)
        network.loop.advanceTime(by: .milliseconds(100))
        try await Self.answered(network, 1).reset()
        // The second waits for the refill, a second after the first token went, not for its backoff.
        let wait = try #require(await rec.waitFor(5).at(4)?.errorEvent?.retryIn)
        #expect(wait == .milliseconds(900), "the budget's slot, not the 100 ms backoff")
        await Self.waitForTheBackoff(network, client)
        network.loop.advanceTime(by: wait - .milliseconds(1))
        #expect(network.connectionCount == 2, "still waiting")
        network.loop.advanceTime(by: .milliseconds(1))
        await network.waitForTransport(2)
        #expect(network.connectionCount == 3)
    }

    @Test func manyClientsShareOneBudget() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        let budget = RetryBudget(burst: 2, perSecond: 2, clock: network.loop)
        let clients = try (0..<6).map { _ in try Self.client(network, budget, backoff: .immediate) }
        let recorders = clients.map(EventRecorder.init)
        defer { for c in clients { c.close() } }
        // Every client connects once (unpaced), then the server restarts.
        await network.waitForTransport(5)
        for i in 0..<6 { try #require(network.sseServer(i)).reset() }
        for rec in recorders { await rec.waitFor(1) }
        // The six reconnects book their slots at once: two (the burst) after the 100 ms
        // backoff, then one every 0.5 s.
        await network.loop.waitForTimers(6)
        network.loop.advanceTime(by: .milliseconds(100))
        await network.waitForTransport(7)
        #expect(network.connectionCount == 8, "two reconnects after the backoff")
        network.loop.advanceTime(by: .milliseconds(500))
        await network.waitForTransport(8)
        #expect(network.connectionCount == 9, "a third 0.5 s later")
        network.loop.advanceTime(by: .milliseconds(500))
        await network.waitForTransport(9)
        #expect(network.connectionCount == 10, "a fourth 1 s later, no more than rate × time + burst")
        network.loop.advanceTime(by: .seconds(1))
        await network.waitForTransport(11)
        #expect(network.connectionCount == 12, "all six by 2 s")
    }

    @Test func retryInIncludesTheBudgetWait() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        let budget = RetryBudget(burst: 1, perSecond: 0.25, clock: network.loop)  // one per 4 s
        let client = try Self.client(
            network, budget, backoff: .exponential(initial: .seconds(1), multiplier: 1, maximum: .seconds(1), jitter: .full))
        defer { client.close() }
        let rec = EventRecorder(client)
        // First failure: the budget has its token, so retryIn is the (jittered) backoff.
        try await Self.answered(network, 0).reset()
        let first = try #require(await rec.waitFor(2).at(1)?.errorEvent?.retryIn)
        #expect(first > .zero && first <= .seconds(1), "full jitter within the 1 s backoff")
        await Self.waitForTheBackoff(network, client)
        network.loop.advanceTime(by: first)
        // Second failure at once: the next slot is 4 s after the first, not the backoff.
        try await Self.answered(network, 1).reset()
        let second = try #require(await rec.waitFor(5).at(4)?.errorEvent?.retryIn)
        #expect(second == .seconds(4) - first, "the budget's slot, 4 s after the first reconnect")
        await Self.waitForTheBackoff(network, client)
        network.loop.advanceTime(by: second - .milliseconds(1))
        #expect(network.connectionCount == 2, "no attempt before the reported retryIn")
        network.loop.advanceTime(by: .milliseconds(1))
        await network.waitForTransport(2)
        #expect(network.connectionCount == 3, "the attempt at exactly retryIn")
    }

    @Test func retryInIsTheBackoffWhenTheBudgetHasRoom() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        let client = try Self.client(network, RetryBudget(burst: 10, perSecond: 10, clock: network.loop))
        defer { client.close() }
        let rec = EventRecorder(client)
        try await Self.answered(network, 0).reset()
        #expect(await rec.waitFor(2).at(1)?.errorEvent?.retryIn == .seconds(1))
    }

    static func client(
        _ network: EmbeddedNetwork, _ budget: RetryBudget, backoff: BackoffPolicy = .exponential(jitter: .none)
    ) throws -> RealtimeClient {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = backoff
        configuration.retryBudget = budget
        configuration.networkMonitor = nil
        configuration.heartbeat = .disabled
        return try network.client(url: URL(string: "http://peer.test/stream")!, configuration: configuration, random: SeededGenerator(seed: 7))
    }

    /// The `index`-th connection of the network, answered with an event stream.
    static func answered(_ network: EmbeddedNetwork, _ index: Int) async throws -> EmbeddedSSEServer {
        await network.waitForTransport(index)
        let server = try #require(network.sseServer(index))
        server.respond()
        return server
    }

    static func waitForTheBackoff(_ network: EmbeddedNetwork, _ client: RealtimeClient) async {
        let state = await network.waitForState(of: client) { if case .waitingToRetry = $0 { true } else { false } }
        guard case .waitingToRetry(let delay)? = state else { return }
        await network.loop.waitForTimer(dueAt: network.loop.now.advanced(by: delay))
    }
}
#endif

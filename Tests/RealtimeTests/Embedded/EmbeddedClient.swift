#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// A `RealtimeClient` on an ``EmbeddedNetwork``: the production transport cores on a manual
/// loop, which is also the client's clock, each attempt's server played by the test. Defaults
/// for tests: jitter off (delays are exact: 1 s, 2 s, 4 s…), a seeded generator, no network
/// monitor, no heartbeat, no compression.
///
/// The consumer runs in a task of its own (an ``EventRecorder``): what the client emits while
/// the test runs the loop reaches it asynchronously, and the test awaits it there. Steps the
/// client takes on the consumer's progress (exact resume waits for it) are awaited through
/// ``waitForState(_:_:)``, which runs the loop once the state is reached.
final class EmbeddedClient: @unchecked Sendable {
    let network = EmbeddedNetwork()
    let client: RealtimeClient
    var loop: ManualLoop { network.loop }

    init(_ url: String = "http://peer.test/stream", seed: UInt64 = 1, configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(jitter: .none)
        configuration.networkMonitor = nil
        configuration.heartbeat = .disabled
        configuration.webSocket.compression = .disabled
        configure(&configuration)
        client = try network.client(url: URL(string: url)!, configuration: configuration, random: SeededGenerator(seed: seed))
    }

    /// What the test left queued (the close's cancellation of the transport) runs, and what
    /// is still armed is dropped, so no connection outlives the test in a cycle with its loop.
    deinit { network.shutdown() }

    /// Runs what the client and its transports queued.
    func run() { loop.run() }

    /// Moves the loop's time (the client's and the transports'), firing what falls due.
    func advance(by duration: Duration) { loop.advanceTime(by: duration) }

    /// The server of SSE attempt `index` (0 for the first), once the transport made it.
    func sse(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) -> EmbeddedSSEServer? {
        guard let server = network.sseServer(index) else {
            Issue.record("no SSE connection \(index + 1) (\(network.connectionCount) made)", sourceLocation: sourceLocation)
            return nil
        }
        return server
    }

    /// The server of WebSocket attempt `index` (0 for the first), once the transport made it.
    func webSocket(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) -> EmbeddedWebSocketServer? {
        guard let server = network.webSocketServer(index) else {
            Issue.record("no WebSocket connection \(index + 1) (\(network.connectionCount) made)", sourceLocation: sourceLocation)
            return nil
        }
        return server
    }

    var connectionCount: Int { network.connectionCount }

    /// Attempt `attempt`'s SSE server (1 for the first), once the client is connecting with it.
    func sseAttempt(_ attempt: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> EmbeddedSSEServer {
        await waitForState("attempt \(attempt)", sourceLocation: sourceLocation) { $0 == .connecting(attempt: attempt) }
        return try #require(sse(attempt - 1, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    }

    /// The first attempt's SSE server, answered with an event stream.
    func openedSSE(sourceLocation: SourceLocation = #_sourceLocation) async throws -> EmbeddedSSEServer {
        let first = try await sseAttempt(1, sourceLocation: sourceLocation)
        first.respond()
        return first
    }

    /// Attempt `attempt`'s WebSocket server (1 for the first), once the client is connecting
    /// with it.
    func webSocketAttempt(_ attempt: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> EmbeddedWebSocketServer {
        await waitForState("attempt \(attempt)", sourceLocation: sourceLocation) { $0 == .connecting(attempt: attempt) }
        return try #require(webSocket(attempt - 1, sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    }

    /// Awaits `body` while running the loop whenever work is queued on it: for a step the
    /// client takes from another task that ends with work on the loop (a failed on-open hook
    /// closes its connection, and the attempt's error comes once the transport ended).
    func pumping<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T {
        await network.runningLoop(body)
    }

    /// Waits until the client waits to retry and its timer is armed, then moves the loop's
    /// time by what is left of the delay (the backoff, a server's hint, a budget slot). The
    /// client publishes the state under its lock and arms the timer just after, maybe on
    /// another thread: moving the time in between would leave the timer behind it.
    func waitOutTheBackoff(sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let delay = await waitForTheBackoff(sourceLocation: sourceLocation) else { return }
        advance(by: delay)
    }

    /// After a failure: when it is `retried`, the backoff passes and WebSocket attempt 2
    /// starts; otherwise the events end with this one connection.
    func expectNextAttempt(_ retried: Bool, _ rec: EventRecorder, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        if retried {
            await waitOutTheBackoff(sourceLocation: sourceLocation)
            _ = try await webSocketAttempt(2, sourceLocation: sourceLocation)
        } else {
            await rec.waitUntilFinished()
            #expect(connectionCount == 1, sourceLocation: sourceLocation)
        }
    }

    /// Waits until the client waits to retry and its timer is armed, without moving the
    /// time; returns the delay. Moving the time only once the timer is armed keeps a test
    /// that checks the delay to the millisecond exact.
    @discardableResult
    func waitForTheBackoff(sourceLocation: SourceLocation = #_sourceLocation) async -> Duration? {
        let state = await waitForState("the backoff", sourceLocation: sourceLocation) { $0.isWaitingToRetry }
        guard case .waitingToRetry(let delay) = state else { return nil }
        await loop.waitForTimer(dueAt: loop.now.advanced(by: delay))
        return delay
    }

    /// Waits until the client reports a state satisfying `condition`, running the loop whenever
    /// work is queued on it meanwhile (the step that leads there may wait for the loop: a
    /// connection's end), then runs the loop (what the client queued on the way is done when
    /// this returns). A `connecting` state also waits for that attempt's transport to be
    /// started (the client starts it just after it publishes the state, maybe from its
    /// consumer's task).
    @discardableResult
    func waitForState(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (RealtimeClient.State) -> Bool
    ) async -> RealtimeClient.State? {
        guard let state = await network.waitForState(of: client, where: condition) else {
            Issue.record("the client ended without \(what) (now \(client.state))", sourceLocation: sourceLocation)
            return nil
        }
        if case .connecting(let attempt) = state { await network.waitForTransport(attempt - 1) }
        loop.run()
        return state
    }
}
#endif

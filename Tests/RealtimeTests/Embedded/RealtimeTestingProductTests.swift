#if os(Linux)
import Foundation
import Realtime
import RealtimeTesting
import Testing

/// What the Testing article promises an application that adds the `RealtimeTesting` product,
/// written with its public API only, as the application would: the article's reconnect
/// example, and a WebSocket heartbeat and close read frame by frame.
@Suite(.timeLimit(.minutes(1))) struct RealtimeTestingProductTests {
    /// The article's example: a reset is resumed after the backoff, from what was processed,
    /// with nothing sleeping. The test waits for the backoff's timer before it moves the
    /// time: the client may arm it from its consumer's task.
    @Test func aResetIsResumedAfterTheBackoff() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(initial: .seconds(1), jitter: .none)
        let client = try network.client(url: URL(string: "https://feed.test/stream")!, configuration: configuration)
        let consumer = Task {
            var texts: [String] = []
            for await event in client.events {
                if case .event(let message) = event { texts.append(message.text ?? "") }
                if texts.count == 2 { break }
            }
            return texts
        }
        await network.waitForTransport(0)
        let first = try #require(network.sseServer(0))
        first.respond()
        first.event("hello", id: "1")
        first.reset()
        await network.loop.waitForTimers(1)
        #expect(network.loop.nextDeadline == network.loop.now.advanced(by: .seconds(1)), "the armed timer is the backoff")
        network.loop.advanceTime(by: .seconds(1))
        await network.waitForTransport(1)
        let second = try #require(network.sseServer(1))
        #expect(second.request.lastEventID == "1", "resumed after what was processed")
        second.respond()
        second.event("again", id: "2")
        #expect(await consumer.value == ["hello", "again"])
    }

    /// With the default jitter the first delay is drawn from 1–3 s, so a test moves the time
    /// by the delay `waitForState(of:where:)` reports (its doc comment's pattern), not by 1 s.
    @Test func theDefaultBackoffIsWaitedOutWithTheReportedDelay() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        let client = try network.client(url: URL(string: "https://feed.test/stream")!)
        let consumer = Task { for await _ in client.events {} }
        await network.waitForTransport(0)
        let first = try #require(network.sseServer(0))
        first.respond()
        first.reset()
        let state = await network.waitForState(of: client) { if case .waitingToRetry = $0 { true } else { false } }
        guard case .waitingToRetry(let delay)? = state else { Issue.record("no backoff: \(String(describing: state))"); return }
        #expect(delay >= .seconds(1) && delay <= .seconds(3), "decorrelated jitter, first retry")
        await network.loop.waitForTimers(1)
        network.loop.advanceTime(by: delay - .nanoseconds(1))
        #expect(network.connectionCount == 1, "not before the delay")
        network.loop.advanceTime(by: .nanoseconds(1))
        await network.waitForTransport(1)
        #expect(network.sseServer(1) != nil)
        client.close()
        await consumer.value
    }

    /// Moving the loop's time fires the WebSocket heartbeat, and the ping is written when
    /// `advanceTime(by:)` returns; `close()` sends a normal close frame the server reads.
    @Test func aHeartbeatIsTestedFrameByFrame() async throws {
        let network = EmbeddedNetwork()
        defer { network.shutdown() }
        var configuration = RealtimeClient.Configuration()
        configuration.heartbeat = .ping(every: .seconds(15))
        let client = try network.client(url: URL(string: "ws://chat.test/room")!, configuration: configuration)
        let consumer = Task { for await _ in client.events {} }
        await network.waitForTransport(0)
        let server = try #require(network.webSocketServer(0))
        server.accept()
        await network.waitForState(of: client) { if case .open = $0 { true } else { false } }
        network.loop.advanceTime(by: .seconds(15) - .nanoseconds(1))
        #expect(server.pingCount == 0)
        network.loop.advanceTime(by: .nanoseconds(1))
        #expect(server.pingCount == 1, "the ping is out when the call returns")
        server.sendText("chatter")
        network.loop.advanceTime(by: .seconds(15))
        #expect(server.pingCount == 2, "the next after 15 s of silence")
        client.close()
        network.loop.run()
        #expect(server.closeFrame?.code == 1000)
        await consumer.value
    }
}
#endif

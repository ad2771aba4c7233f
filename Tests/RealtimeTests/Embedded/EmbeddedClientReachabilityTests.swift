#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Reachability policy over the production transports on the embedded stack: no attempt and
/// no retry spent while the network is down, reconnect at once with a fresh backoff when it
/// returns, verify the live connection on a path change. A `ManualNetworkMonitor` and the
/// loop's clock: no wall time involved.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientReachabilityTests {
    static let remote = "http://stream.example.test/feed"

    func client(
        _ monitor: ManualNetworkMonitor, url: String = remote,
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> EmbeddedClient {
        try EmbeddedClient(url) { c in
            c.networkMonitor = monitor
            configure(&c)
        }
    }

    /// The server of the `index`-th connection (0 for the first), once the client made it.
    func server(_ t: EmbeddedClient, _ index: Int) async throws -> EmbeddedSSEServer {
        await t.network.waitForTransport(index)
        return try #require(t.sse(index))
    }

    @Test func noAttemptWhileUnreachableThenConnectAtOnce() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let events = await rec.waitFor(1)
        let waiting = try #require(events.at(0)?.errorEvent)
        #expect(waiting.error.code == .unreachable)
        #expect(waiting.willRetry)
        #expect(waiting.retryIn == nil)
        #expect(t.client.state == .waitingForNetwork)
        t.run()
        #expect(t.connectionCount == 0, "no connection attempt while unreachable")
        #expect(t.loop.pendingTimerCount == 0, "no timer while unreachable")
        #expect(t.client.statistics.attempts == 0)
        #expect(t.client.statistics.networkWaits == 1)
        monitor.setReachable(true)
        try await server(t, 0).respond()
        await rec.waitFor(2)
        #expect(t.loop.now.offset == .zero, "connected without any time passing (no backoff delay)")
        #expect(rec.events.count == 2, "one waiting event, then open: \(rec.summary)")
    }

    @Test func networkLossMidStreamWaitsThenResumesWithTheCursor() async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await server(t, 0)
        first.respond()
        first.event("a", id: "1")
        first.event("b", id: "2")
        await rec.waitFor(3)
        monitor.setReachable(false)
        t.run()
        #expect(first.ended, "the live attempt ends when the network goes away")
        let events = await rec.waitFor(5)
        let lost = try #require(events.at(3)?.errorEvent)
        #expect(lost.error.code == .unreachable)
        #expect(lost.willRetry && lost.retryIn == nil)
        #expect(events.at(4)?.closeEvent?.willReconnect == true)
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        #expect(t.connectionCount == 1, "no attempt while down")
        #expect(t.loop.pendingTimerCount == 0, "no backoff timer while down")
        #expect(rec.events.count == 5, "the loss is reported once: \(rec.summary)")
        monitor.setReachable(true)
        let second = try await server(t, 1)
        #expect(second.request.lastEventID == "2", "resume after the last processed event")
        #expect(t.client.statistics.errorsByClass[.unreachable] == 1)
    }

    @Test func anOutageSpendsNoRetryAndTheReturnResetsTheBackoff() async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor) { $0.reconnect = .limited(maxAttempts: 4) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        // Two failures: backoff 1 s, then 2 s.
        try await server(t, 0).reset()
        await t.waitOutTheBackoff()
        try await server(t, 1).reset()
        await t.waitForTheBackoff()
        // The network goes away during the backoff: the timer is cancelled, nothing connects.
        monitor.setReachable(false)
        #expect(t.loop.pendingTimerCount == 0, "the backoff timer is cancelled")
        t.advance(by: .seconds(60))
        #expect(t.client.state == .waitingForNetwork)
        #expect(t.connectionCount == 2)
        // Many outages in a row spend no attempt of the four allowed: each return connects
        // at once, each loss ends that attempt without counting it.
        for _ in 0..<5 {
            let made = t.connectionCount
            monitor.setReachable(true)
            _ = try await server(t, made)
            monitor.setReachable(false)
            t.run()  // the client's close of the attempt runs on the loop
            await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        }
        let made = t.connectionCount
        let before = t.loop.now
        monitor.setReachable(true)
        let last = try await server(t, made)
        #expect(t.loop.now == before, "connected at once when the network returned")
        let attempt = last.request.attempt
        last.reset()
        await rec.waitFor("the error of attempt \(attempt)") { $0.errorEvent?.attempt == attempt }
        let error = try #require(rec.events.last { $0.errorEvent?.attempt == attempt }?.errorEvent)
        #expect(error.willRetry, "outages did not count against maxAttempts")
        #expect(error.retryIn == .seconds(1), "a fresh backoff after the network returned")
    }

    /// On a path change the live SSE connection must see a byte within the probe timeout: a
    /// comment proves it alive, silence is a dead connection and the client reconnects.
    @Test(arguments: [false, true])
    func aPathChangeWhileConnectedVerifiesTheSSEConnection(byteArrives: Bool) async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor) { $0.pathChangeProbeTimeout = .seconds(3) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await server(t, 0)
        first.respond()
        first.event("a", id: "1")
        await rec.waitFor(2)
        t.advance(by: .seconds(30))
        #expect(!first.ended, "nothing to verify before the path changes")
        monitor.signalPathChange()
        t.run()
        t.advance(by: .milliseconds(2_999))
        if byteArrives { first.send(": alive\n\n") }
        t.advance(by: .milliseconds(1))
        #expect(first.ended == !byteArrives)
        guard !byteArrives else { return }
        let events = await rec.waitFor(4)
        #expect(events.at(2)?.errorEvent?.error.code == .idleTimeout)
        await t.waitOutTheBackoff()
        let second = try await server(t, 1)
        #expect(second.request.attempt == 2)
        #expect(second.request.lastEventID == "1", "reconnected with its cursor")
    }

    /// On a path change the live WebSocket is pinged: a pong within the probe timeout keeps
    /// it, none is a dead connection and the client reconnects.
    @Test(arguments: [false, true])
    func aPathChangeWhileConnectedVerifiesTheWebSocket(pongs: Bool) async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor, url: "ws://stream.example.test/ws") { $0.pathChangeProbeTimeout = .seconds(3) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.network.waitForTransport(0)
        let first = try #require(t.webSocket(0))
        first.answersPings = pongs
        first.accept()
        await rec.waitFor(1)
        t.advance(by: .seconds(30))
        #expect(first.pingCount == 0, "nothing to verify before the path changes")
        monitor.signalPathChange()
        t.run()
        #expect(first.pingCount == 1, "verified as soon as the monitor said so")
        t.advance(by: .seconds(3))
        #expect(first.isClosed == !pongs)
        guard !pongs else { return }
        let events = await rec.waitFor(3)
        #expect(events.at(1)?.errorEvent?.willRetry == true, "\(rec.summary)")
        await t.waitOutTheBackoff()
        await t.network.waitForTransport(1)
        #expect(t.webSocket(1) != nil)
    }

    @Test(arguments: ["http://127.0.0.1:8080/stream", "http://127.1.2.3/s", "http://localhost/s", "http://a.localhost/s", "ws://[::1]:9/ws"])
    func loopbackHostsIgnoreTheMonitor(_ url: String) async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor, url: url)
        _ = EventRecorder(t.client)
        defer { t.client.close() }
        await t.network.waitForTransport(0)
        #expect(t.connectionCount == 1)
        #expect(monitor.observerCount == 0)
    }

    /// Names that only look like loopback addresses go through the network like any other.
    @Test(arguments: ["http://127.example.com/s", "http://127.0.0.1.example.com/s", "http://localhost.example.com/s"])
    func namesThatLookLikeLoopbackWaitForTheNetwork(_ url: String) async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor, url: url)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let events = await rec.waitFor(1)
        #expect(events.at(0)?.errorEvent?.error.code == .unreachable)
        t.run()
        #expect(t.connectionCount == 0 && monitor.observerCount == 1)
    }

    @Test func closeStopsObservingAndWaiting() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        await rec.waitFor(1)
        #expect(monitor.observerCount == 1)
        t.client.close()
        await rec.waitUntilFinished()
        #expect(monitor.observerCount == 0, "close() stops observing at once")
        monitor.setReachable(true)
        t.run()
        #expect(t.client.state == .closed(.cancelled))
        #expect(t.connectionCount == 0)
    }

    @Test func suspendWhileWaitingForTheNetworkWaitsForResume() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await rec.waitFor(1)
        t.client.suspend()
        monitor.setReachable(true)
        t.run()
        #expect(t.client.state == .suspended)
        #expect(t.connectionCount == 0, "suspended: the returning network does not connect")
        t.client.resume()
        _ = try await server(t, 0)
    }
}
#endif

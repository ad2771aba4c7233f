import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// Reachability policy: no attempt and no retry spent while the network is down,
/// reconnect at once with a fresh backoff when it returns, verify on a path change.
/// Driven by a ManualNetworkMonitor and the manual clock: no wall time involved.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientReachabilityTests {
    static let remote = "http://stream.example.test/feed"

    func client(
        _ monitor: ManualNetworkMonitor, url: String = remote,
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> TestClient {
        try TestClient(url) { c in
            c.networkMonitor = monitor
            configure(&c)
        }
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
        #expect(t.factory.count == 0, "no connection attempt while unreachable")
        #expect(t.clock.sleeperCount == 0, "no timer while unreachable")
        #expect(t.client.statistics.attempts == 0)
        #expect(t.client.statistics.networkWaits == 1)
        monitor.setReachable(true)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(2)
        #expect(t.clock.sleeperCount == 0, "connected without a backoff delay")
        #expect(rec.events.count == 2, "one waiting event, then open: \(rec.summary)")
    }

    @Test func networkLossMidStreamWaitsThenResumesWithTheCursor() async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("b", id: "2")
        await rec.waitFor(3)
        monitor.setReachable(false)
        #expect(first.closed, "the live attempt ends when the network goes away")
        let events = await rec.waitFor(5)
        let lost = try #require(events.at(3)?.errorEvent)
        #expect(lost.error.code == .unreachable)
        #expect(lost.willRetry && lost.retryIn == nil)
        #expect(events.at(4)?.closeEvent?.willReconnect == true)
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        #expect(t.factory.count == 1, "no attempt while down")
        #expect(t.clock.sleeperCount == 0, "no backoff timer while down")
        #expect(rec.events.count == 5, "the loss is reported once: \(rec.summary)")
        monitor.setReachable(true)
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "2", "resume after the last processed event")
        #expect(t.client.statistics.errorsByClass[.unreachable] == 1)
    }

    @Test func outageSpendsNoRetryAndTheReturnResetsTheBackoff() async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor) { $0.reconnect = .limited(maxAttempts: 4) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        // Two failures: backoff 1 s, then 2 s.
        try #require(await t.factory.transport(0)).fail(RealtimeError(.network))
        await t.advance(by: .seconds(1))
        try #require(await t.factory.transport(1)).fail(RealtimeError(.network))
        await t.clock.waitForSleepers(1)
        // The network goes away during the backoff: the timer is cancelled, nothing connects.
        monitor.setReachable(false)
        #expect(t.clock.sleeperCount == 0, "the backoff timer is cancelled")
        t.clock.advance(by: .seconds(60))
        #expect(t.client.state == .waitingForNetwork)
        #expect(t.factory.count == 2)
        // Many outages in a row spend no attempt of the four allowed: each return connects
        // at once, each loss ends that attempt without counting it.
        for _ in 0..<5 {
            let made = t.factory.count
            monitor.setReachable(true)
            _ = try #require(await t.factory.transport(after: made))
            monitor.setReachable(false)
            await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        }
        let made = t.factory.count
        monitor.setReachable(true)
        let last = try #require(await t.factory.transport(after: made))
        #expect(t.clock.sleeperCount == 0, "connected at once when the network returned")
        let attempt = last.request.attempt
        last.fail(RealtimeError(.network))
        await rec.waitFor("the error of attempt \(attempt)") { $0.errorEvent?.attempt == attempt }
        let error = try #require(rec.events.last { $0.errorEvent?.attempt == attempt }?.errorEvent)
        #expect(error.willRetry, "outages did not count against maxAttempts")
        #expect(error.retryIn == .seconds(1), "a fresh backoff after the network returned")
        #expect(t.factory.overlapping == 0)
    }

    /// On a path change the live connection of either transport is asked to prove itself
    /// within the probe timeout.
    @Test(arguments: ["ws://stream.example.test/ws", "http://stream.example.test/sse"])
    func pathChangeWhileConnectedVerifiesTheConnection(url: String) async throws {
        let monitor = ManualNetworkMonitor()
        let t = try client(monitor, url: url) { $0.pathChangeProbeTimeout = .seconds(3) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        #expect(first.verifications.isEmpty, "nothing to verify before the path changes")
        monitor.signalPathChange()
        #expect(first.verifications == [.seconds(3)], "verified as soon as the monitor said so")
        #expect(!first.closed, "a path change alone does not drop a working connection")
        // The transport found it dead: the client reconnects as after any idle timeout.
        first.fail(RealtimeError(.idleTimeout))
        await t.advance(by: .seconds(1))
        #expect(await t.factory.transport(1) != nil)
    }

    @Test(arguments: ["http://127.0.0.1:8080/stream", "http://127.1.2.3/s", "http://localhost/s", "http://a.localhost/s", "ws://[::1]:9/ws"])
    func loopbackHostsIgnoreTheMonitor(_ url: String) async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor, url: url)
        _ = EventRecorder(t.client)
        defer { t.client.close() }
        #expect(await t.factory.transport(0) != nil)
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
        #expect(t.factory.count == 0 && monitor.observerCount == 1)
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
        #expect(t.client.state == .closed(.cancelled))
        #expect(t.factory.count == 0)
    }

    @Test func suspendWhileWaitingForTheNetworkWaitsForResume() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await rec.waitFor(1)
        t.client.suspend()
        monitor.setReachable(true)
        #expect(t.client.state == .suspended)
        #expect(t.factory.count == 0, "suspended: the returning network does not connect")
        t.client.resume()
        #expect(await t.factory.transport(0) != nil)
    }
}

import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// Reachability policy (issue 5): no attempt and no retry spent while the network is down,
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

    /// Lets the loop run; a test that expects nothing to happen checks after this.
    func settle() async { for _ in 0..<1000 { await Task.yield() } }

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
        await settle()
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
        await settle()
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
        await eventually("the 2 s backoff timer") { t.clock.sleeperCount == 1 }
        // The network goes away during the backoff: the timer is cancelled, nothing connects.
        monitor.setReachable(false)
        await eventually("the timer to go") { t.clock.sleeperCount == 0 }
        t.clock.advance(by: .seconds(60))
        await settle()
        #expect(t.factory.count == 2)
        // Many outages in a row spend no attempt of the four allowed.
        for _ in 0..<5 {
            monitor.setReachable(true)
            monitor.setReachable(false)
        }
        monitor.setReachable(true)
        let third = try #require(await t.factory.transport(2))
        #expect(t.clock.sleeperCount == 0, "connected at once when the network returned")
        third.fail(RealtimeError(.network))
        await eventually("the error of attempt 3") {
            rec.events.contains { $0.errorEvent?.attempt == 3 }
        }
        let last = try #require(rec.events.last { $0.errorEvent?.attempt == 3 }?.errorEvent)
        #expect(last.willRetry, "outages did not count against maxAttempts")
        #expect(last.retryIn == .seconds(1), "a fresh backoff after the network returned")
        #expect(t.factory.count == 3)
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
        await eventually("the connection to be verified") { first.verifications == [.seconds(3)] }
        #expect(!first.closed, "a path change alone does not drop a working connection")
        // The transport found it dead: the client reconnects as after any idle timeout.
        first.fail(RealtimeError(.idleTimeout))
        await t.advance(by: .seconds(1))
        #expect(await t.factory.transport(1) != nil)
    }

    @Test func loopbackHostsIgnoreTheMonitor() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor, url: "http://127.0.0.1:8080/stream")
        _ = EventRecorder(t.client)
        defer { t.client.close() }
        #expect(await t.factory.transport(0) != nil)
        #expect(monitor.observerCount == 0)
    }

    @Test func closeStopsObservingAndWaiting() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try client(monitor)
        let rec = EventRecorder(t.client)
        await rec.waitFor(1)
        #expect(monitor.observerCount == 1)
        t.client.close()
        await rec.waitUntilFinished()
        await eventually("the observation to go") { monitor.observerCount == 0 }
        monitor.setReachable(true)
        await settle()
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
        await settle()
        #expect(t.factory.count == 0, "suspended: the returning network does not connect")
        t.client.resume()
        #expect(await t.factory.transport(0) != nil)
    }
}

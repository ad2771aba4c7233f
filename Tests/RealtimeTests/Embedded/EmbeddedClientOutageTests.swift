#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// One outage as the client reports it, with a `ManualNetworkMonitor`: one `unreachable`
/// error however the path changes while it lasts, and no attempt while it lasts.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientOutageTests {
    /// While unreachable, path changes (interfaces coming and going without a usable path)
    /// add no error, no attempt and no timer: one `unreachable` error per outage; the next
    /// outage gets its own.
    @Test func oneUnreachableErrorPerOutageWhateverThePathDoes() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try EmbeddedClient("http://stream.example.test/feed") { $0.networkMonitor = monitor }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await rec.waitFor("unreachable") { $0.errorEvent?.error.code == .unreachable }
        for _ in 0..<3 { monitor.signalPathChange() }
        t.run()
        #expect(t.connectionCount == 0)
        #expect(t.loop.pendingTimerCount == 0)
        #expect(t.client.state == .waitingForNetwork)
        monitor.setReachable(true)
        let first = try await t.sseAttempt(1)
        first.respond()
        await rec.waitFor("open") { if case .open = $0 { true } else { false } }
        monitor.setReachable(false)
        t.run()
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        await rec.waitFor("closed") { $0.closeEvent != nil }
        let unreachable = rec.events.filter { $0.errorEvent?.error.code == .unreachable }
        #expect(unreachable.count == 2, "one per outage: \(rec.summary)")
        #expect(t.client.statistics.networkWaits == 2)
    }
}
#endif

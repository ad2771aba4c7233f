#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// A connection whose `onOpen` hook is still running is not ready: a suspend or a network
/// loss then cancels the hook, never emits `open`, and the next connection runs the hook
/// again; a suspend is not a failure.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientHookInterruptionTests {
    /// Which attempts' hooks started and which were cancelled; the first hook waits on a clock
    /// nobody moves until it is cancelled, later ones return at once.
    final class Hooks: Sendable {
        let started = Observed<[Int]>([])
        let cancelled = Observed<[Int]>([])
        private let never = ManualClock()

        func run(_ context: RealtimeClient.OpenContext) async throws {
            let first = started.value.isEmpty  // hooks run one at a time
            started.update { $0.append(context.attempt) }
            guard first else { return }
            do { try await never.sleep(for: .seconds(3600)) } catch {
                cancelled.update { $0.append(context.attempt) }
                throw error
            }
        }
    }

    static func client(_ hooks: Hooks, monitor: ManualNetworkMonitor? = nil) throws -> EmbeddedClient {
        try EmbeddedClient("ws://peer.test/ws") {
            $0.onOpen = { try await hooks.run($0) }
            $0.networkMonitor = monitor
        }
    }

    /// `suspend()` while the hook runs cancels it without a failure (no `open_hook_failed`,
    /// no `open`); `resume()` connects at once and the hook runs on the new connection.
    @Test func suspendWhileTheHookRunsCancelsItAndResumeRunsItAgain() async throws {
        let hooks = Hooks()
        let t = try Self.client(hooks)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await hooks.started.wait("the first hook") { $0 == [1] }
        t.client.suspend()
        await EmbeddedClientOpenHookTests.closedByTheClient(first, t)
        t.run()
        await hooks.cancelled.wait("the hook to be cancelled") { $0 == [1] }
        await t.waitForState("suspended") { $0 == .suspended }
        let before = t.loop.now
        t.client.resume()
        await t.network.waitForTransport(1)
        let second = try #require(t.webSocket(1))
        second.accept()
        await rec.waitFor("open") { if case .open = $0 { true } else { false } }
        #expect(t.loop.now == before, "resumed at once")
        #expect(hooks.started.value.count == 2, "the hook runs on the new connection")
        #expect(!rec.events.contains { $0.errorEvent?.error.code == .openHookFailed }, "a suspend is not a failure: \(rec.summary)")
        #expect(rec.events.filter { if case .open = $0 { true } else { false } }.count == 1, "only the second connection was ready")
    }

    /// The network going away while the hook runs cancels it: one `unreachable` error, no
    /// `open`, no timer, and the return of the network connects at once and runs the hook again.
    @Test func aNetworkLossWhileTheHookRunsWaitsForTheNetwork() async throws {
        let hooks = Hooks()
        let monitor = ManualNetworkMonitor()
        let t = try Self.client(hooks, monitor: monitor)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await hooks.started.wait("the first hook") { $0 == [1] }
        monitor.setReachable(false)
        t.run()
        await hooks.cancelled.wait("the hook to be cancelled") { $0 == [1] }
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        await rec.waitFor("unreachable") { $0.errorEvent?.error.code == .unreachable }
        #expect(t.loop.pendingTimerCount == 0, "no timer while down")
        monitor.setReachable(true)
        await t.network.waitForTransport(1)
        try #require(t.webSocket(1)).accept()
        await rec.waitFor("open") { if case .open = $0 { true } else { false } }
        #expect(hooks.started.value.count == 2, "the hook runs on the new connection")
        let errors = rec.events.compactMap(\.errorEvent).map(\.error.code)
        #expect(errors == [.unreachable], "the loss is reported once, not as a hook failure: \(rec.summary)")
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// Defaults users should not trip over, through the production connections on the embedded
/// stack.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientDefaultsTests {
    /// A feed that is quiet for a few minutes is not cut: the default idle timeout is 300 s of
    /// silence, for SSE and WebSocket alike, and any byte starts it again.
    @Test(arguments: ["http://peer.test/stream", "ws://peer.test/ws"])
    func aQuietFeedIsCutAfterFiveMinutesOfSilence(_ url: String) async throws {
        #expect(RealtimeClient.Configuration().idleTimeout == .seconds(300))
        let t = try EmbeddedClient(url)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let say: (String) -> Void
        if url.hasPrefix("ws") {
            let server = try await t.webSocketAttempt(1)
            server.accept()
            say = { server.sendText($0) }
        } else {
            let server = try await t.openedSSE()
            say = { server.event($0) }
        }
        await rec.waitFor(1)
        t.advance(by: .seconds(299))
        say("still here")
        t.advance(by: .seconds(299))
        #expect(rec.events.compactMap(\.errorEvent).isEmpty, "299 s of silence twice, a message between")
        t.advance(by: .seconds(1))
        await rec.waitFor("the idle timeout") { $0.errorEvent != nil }
        #expect(rec.events.compactMap(\.errorEvent).first?.error.code == .idleTimeout)
    }

    /// The default heartbeat on a silent WebSocket: pings at 30 s and 60 s of silence, dead at
    /// 90 s with `heartbeat_timeout` (our close frame 1001, `closed` 1006), then a retry.
    @Test func theDefaultHeartbeatDeclaresASilentServerDeadAt90Seconds() async throws {
        let t = try EmbeddedClient("ws://peer.test/ws") { $0.heartbeat = RealtimeClient.Configuration().heartbeat }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.webSocketAttempt(1)
        server.accept()
        server.answersPings = false
        await rec.waitFor(1)
        t.advance(by: .seconds(30) - .nanoseconds(1))
        #expect(server.pingCount == 0)
        t.advance(by: .nanoseconds(1))
        #expect(server.pingCount == 1, "at 30 s")
        t.advance(by: .seconds(30))
        #expect(server.pingCount == 2, "at 60 s")
        t.advance(by: .seconds(30) - .nanoseconds(1))
        #expect(!server.isClosed, "alive until 90 s")
        t.advance(by: .nanoseconds(1))
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) error(heartbeat_timeout,retry) closed(reconnect)")
        #expect(rec.events.at(1)?.errorEvent?.error.closeCode == 1001 && rec.events.at(2)?.closeEvent?.code == 1006)
        #expect(server.closeFrame?.code == 1001)
    }
}
#endif

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
}
#endif

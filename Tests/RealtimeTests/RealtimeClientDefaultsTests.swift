import Foundation
import Realtime
import RealtimeTestSupport
import Testing

/// Defaults users should not trip over.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientDefaultsTests {
    /// A feed that is quiet for a few minutes is not cut: every attempt's transport gets the
    /// 300 s idle timeout, for SSE and WebSocket alike.
    @Test(arguments: ["http://127.0.0.1:8080/stream", "ws://127.0.0.1:8080/ws"])
    func theIdleTimeoutIsFiveMinutes(_ url: String) async throws {
        #expect(RealtimeClient.Configuration().idleTimeout == .seconds(300))
        let t = try TestClient(url)
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.idleTimeout == .seconds(300))
        first.open()
        await rec.waitFor(1)
    }
}

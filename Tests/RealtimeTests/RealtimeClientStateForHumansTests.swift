import Foundation
import Realtime
import Testing

/// What a person reads: the states' descriptions (no clock instant, no `Optional(…)`).
/// (`isConnected` and the counters, through a connection: `EmbeddedClientStateTests`.)
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientStateForHumansTests {
    @Test func everyStateHasAPlainDescription() {
        let info = ConnectionInfo(transport: .sse, url: URL(string: "http://example.test/stream")!, status: 200)
        let cases: [(RealtimeClient.State, String)] = [
            (.idle, "idle"),
            (.connecting(attempt: 2), "connecting (attempt 2)"),
            (.open(info), "open: sse http://example.test/stream (200, attempt 1)"),
            (.waitingToRetry(in: .milliseconds(2500)), "waiting to retry in 2.5 s"),
            (.waitingToRetry(in: .seconds(90)), "waiting to retry in 90 s"),
            (.waitingToRetry(in: .milliseconds(1234)), "waiting to retry in 1.2 s"),
            (.waitingToRetry(in: .milliseconds(20)), "waiting to retry"),
            (.waitingToRetry(in: .zero), "waiting to retry"),
            (.waitingForNetwork, "waiting for the network"),
            (.suspended, "suspended"),
            (.closed(nil), "closed"),
            (.closed(.httpStatus(404)), "closed: http_status (404)"),
        ]
        for (state, text) in cases {
            #expect(state.description == text)
            #expect(!"\(state)".contains("Instant") && !"\(state)".contains("Optional"), "\(state)")
        }
    }
}

import Foundation
@testable import Realtime
import RealtimeTestSupport
import Testing

/// What a person reads: the states' descriptions (no clock instant, no `Optional(…)`),
/// `isConnected`, the counters of what was sent and the open connections.
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

    @Test func isConnectedAndOpenConnectionsFollowTheConnection() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        #expect(!t.client.isConnected && t.client.statistics.openConnections == 0)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        #expect(t.client.isConnected)
        #expect(t.client.statistics.openConnections == 1)
        first.fail(RealtimeError(.network))
        await rec.waitFor(3)
        #expect(!t.client.isConnected)
        #expect(t.client.statistics.openConnections == 0)
    }

    @Test func sentMessagesAndBytesAreCounted() async throws {
        let t = try TestClient("ws://127.0.0.1:8080/ws") { $0.sendPolicy = .queue() }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["queued"])
        first.open()
        for task in queued { #expect(try await task.value.get() == ()) }
        try await t.client.send(.text("héllo"))
        try await t.client.send(.binary([1, 2, 3]))
        await rec.waitFor(1)
        let s = t.client.statistics
        #expect(s.messagesSent == 3)
        #expect(s.bytesSent == 6 + 6 + 3, "payload bytes: UTF-8 for text")
    }
}

import Foundation
import RealtimeCore
import RealtimeTestServer
import RealtimeWebSocket
import Testing

/// `verifyConnection(within:)` on WebSocket (path change): a ping goes out, and a
/// connection that hears nothing back within the probe timeout ends with `idleTimeout`.
@Suite(.serialized, .timeLimit(.minutes(1))) struct WebSocketTransportPathProbeTests {
    @Test func answeredPingPassesTheProbe() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws"))
            #expect(await probe.opened() != nil)
            probe.transport.verifyConnection(within: .milliseconds(300))
            try await Task.sleep(for: .milliseconds(800))
            try await probe.transport.send(.text("still here"))
            #expect(await probe.message()?.content == .text("still here"), "alive after the probe")
            probe.transport.close(code: 1000, reason: "")
            _ = await probe.ended()
            #expect((server.webSocketSessions.last?.pingsReceived ?? 0) >= 1, "the probe pinged")
        }
    }

    @Test func silentPeerFailsTheProbe() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        try await withDeadline {
            let probe = TransportProbe(server.wsURL("/ws?ignore_pings=1"))
            #expect(await probe.opened() != nil)
            let probedAt = ContinuousClock.now
            probe.transport.verifyConnection(within: .milliseconds(300))
            let (end, _) = await probe.ended()
            #expect(end?.error?.code == .idleTimeout)
            #expect(ContinuousClock.now - probedAt >= .milliseconds(300))
        }
    }
}

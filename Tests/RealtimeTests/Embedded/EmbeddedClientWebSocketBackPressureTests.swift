#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The bounded outbound queue through `RealtimeClient.send` on a `ws://` URL, against a
/// server whose TCP window is shut (the kernel takes none of our bytes).
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketBackPressureTests {
    /// A client whose first connection is open, with `configure` applied, and a server that
    /// reads nothing from now on.
    static func deafServer(
        _ configure: @escaping (inout RealtimeClient.Configuration) -> Void
    ) async throws -> (EmbeddedClient, EventRecorder, EmbeddedWebSocketServer) {
        let (t, rec, server) = try await EmbeddedClientWebSocketFrameTests.opened(configure)
        t.loop.onLoop { server.stream.kernelCapacity = 0 }
        return (t, rec, server)
    }

    /// Messages held by a shut window, more than `outboundQueueCapacity` of them, are all
    /// written in call order once the server reads again.
    @Test func messagesHeldByAShutWindowGoOutInCallOrder() async throws {
        let (t, _, server) = try await Self.deafServer { $0.webSocket.outboundQueueCapacity = 2 }
        defer { t.client.close() }
        try await t.client.send(.text("1"))
        try await t.client.send(.text("2"))
        let third = Task { try await t.client.send(.text("3")) }
        t.loop.onLoop { server.stream.kernelCapacity = .max }
        #expect(await server.waitUntil { server.texts == ["1", "2", "3"] })
        try await third.value
    }

    /// A peer that never reads ends the connection with `peer_not_reading` (close code 1008)
    /// within 1.25 × `writeTimeout` of the last byte it took, and the client retries.
    @Test func aPeerThatStopsReadingIsPeerNotReading() async throws {
        let (t, rec, _) = try await Self.deafServer { $0.webSocket.writeTimeout = .seconds(4) }
        defer { t.client.close() }
        try await t.client.send(.text("accepted"))
        t.run()
        t.advance(by: .seconds(5))
        t.advance(by: .seconds(2))
        await rec.waitFor("the error") { $0.errorEvent != nil }
        let error = try #require(rec.events.compactMap(\.errorEvent).first)
        #expect(error.error.code == .peerNotReading && error.error.closeCode == 1008 && error.willRetry, "\(error)")
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `close()` on a WebSocket client performs the RFC 6455 closing handshake (§7.1.2) after the
/// client's events ended: the close frame goes out, and the TCP connection stays until the
/// server answers or ``WebSocketOptions/closeTimeout`` passes (§7.1.1: the server closes
/// first), although the closed client let go of its transport at once.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientWebSocketCloseTests {
    @Test func closeWaitsForTheServersCloseFrameUpToTheCloseTimeout() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketTests.opened { $0.webSocket.closeTimeout = .seconds(3) }
        await rec.waitFor(1)
        server.answersClose = false
        t.client.close()
        t.run()
        await rec.waitUntilFinished()
        #expect(server.closeFrame?.code == 1000)
        #expect(!server.isClosed, "the client waits for the server's close frame and EOF")
        #expect(t.loop.pendingTimerCount == 1, "the close timeout")
        t.advance(by: .seconds(3) - .milliseconds(1))
        #expect(!server.isClosed)
        t.advance(by: .milliseconds(1))
        #expect(server.isClosed, "then drops TCP itself")
        #expect(t.loop.pendingTimerCount == 0)
    }

    @Test func theServersAnswerEndsTheHandshakeAtOnce() async throws {
        let (t, rec, server) = try await EmbeddedClientWebSocketTests.opened()
        await rec.waitFor(1)
        server.answersClose = false
        t.client.close()
        t.run()
        #expect(!server.isClosed)
        server.close(code: 1000)
        t.run()
        #expect(server.isClosed, "the echo and the server's EOF end the connection")
        #expect(t.loop.pendingTimerCount == 0, "no close timer left behind")
    }
}
#endif

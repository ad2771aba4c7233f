import Foundation
import Testing
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import RealtimeTestServer
@testable import RealtimeWebSocket

/// `close()` writes what was accepted before its close frame, to a real server. The send
/// queue's rules (acceptance before the open, `flush`, the bounds while the peer does not
/// read) are embedded tests (`WebSocketEmbeddedSendTests`).
@Suite(.timeLimit(.minutes(1))) struct WebSocketSendPathTests {
    /// `close()` right after a burst of accepted sends: every message reaches the server
    /// before the close frame.
    @Test func closeWritesWhatWasAcceptedFirst() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        try await withDeadline(30) {
            let probe = TransportProbe(server.wsURL("/ws"))
            #expect(await probe.opened() != nil)
            for i in 0..<300 { try await probe.transport.send(.text("\(i)")) }
            probe.transport.close(code: 4001, reason: "")
            let (end, _) = await probe.ended()
            #expect(end?.clean == true && end?.error?.code == .cancelled)
            let session = try #require(server.webSocketSessions.first)
            #expect(session.receivedClose && session.closeCode == 4001)
            #expect(session.messageCount == 300)
            #expect(session.textMessages == (0..<300).map { "\($0)" }, "in order, all before the close frame")
        }
    }
}

#if os(Linux)
import Realtime
import RealtimeGraphQL
import RealtimeTesting
@_spi(Transport) import RealtimeCore

/// One WebSocket attempt of a ``EmbeddedGraphQLServer``: the test plays the graphql-transport-ws
/// server on the production WebSocket connection's byte stream (an ``EmbeddedWebSocketServer``).
/// It reads what the client sent with ``nextSent()`` (in order, running the loop while it
/// waits, never polling) and answers with ``receive(_:)``, ``serverClose(_:reason:)`` or
/// ``cut()``.
final class EmbeddedGraphQLSocket: @unchecked Sendable {
    let server: EmbeddedWebSocketServer
    /// The texts of the client already handed to the test.
    private var read = 0

    init(server: EmbeddedWebSocketServer) {
        self.server = server
    }

    var request: TransportRequest { server.request }

    /// The upgrade is accepted with `subprotocol`.
    func open(subprotocol: String? = GraphQLClient.subprotocol) {
        server.accept(subprotocol: subprotocol)
    }

    /// A text message from the server.
    func receive(_ text: String) {
        server.sendText(text)
    }

    /// The server's close frame; the client echoes it and the server ends TCP.
    func serverClose(_ code: UInt16, reason: String = "") {
        server.close(code: code, reason: reason)
    }

    /// The connection is cut (a reset).
    func cut() {
        server.reset()
    }

    /// The next text the client sent on this connection; nil once it is closed and all were
    /// read. Runs the loop whenever the client queued work on it meanwhile.
    func nextSent() async -> String? {
        guard await server.waitUntil({ server.texts.count > read }) else { return nil }
        read += 1
        return server.texts[read - 1]
    }

    /// The close code and reason the client sent, if it sent a close frame (its own, or the
    /// echo of the server's).
    var closedWith: (code: UInt16, reason: String)? {
        server.closeFrame.map { ($0.code ?? 1005, $0.reason) }
    }

    var ended: Bool { server.isClosed }
}
#endif

#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeTesting
@_spi(Transport) import RealtimeWebSocket
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// One attempt's Engine.IO server, played on the production WebSocket connection's byte
/// stream (an ``EmbeddedWebSocketServer``): the test delivers what the server sends
/// (``text(_:)``, ``binary(_:)``, ``end()``) and reads what the client sent (``waitForSent(_:)``,
/// running the loop while it waits). ``Factory`` hands them out in order.
final class EmbeddedEngineIOServer: @unchecked Sendable {
    let server: EmbeddedWebSocketServer

    init(server: EmbeddedWebSocketServer) {
        self.server = server
    }

    var request: TransportRequest { server.request }

    /// What the client sent so far, as text (binary messages as `<n bytes>`).
    var sentTexts: [String] {
        server.read()
        return server.received.compactMap {
            switch $0 {
            case .text(let bytes): String(decoding: bytes, as: UTF8.self)
            case .binary(let bytes): "<\(bytes.count) bytes>"
            default: nil
            }
        }
    }

    /// The close code the client sent, if it closed.
    var closeCode: UInt16? { server.closeFrame?.code }

    /// Waits until the client sent at least `count` messages, running the loop whenever the
    /// client queued work on it; returns them as text.
    @discardableResult
    func waitForSent(_ count: Int) async -> [String] {
        _ = await server.waitUntil { sentTexts.count >= count }
        return sentTexts
    }

    /// Waits until the client sent its close frame (which the server answers, ending the
    /// connection), running the loop whenever the client queued work on it; its code.
    @discardableResult
    func waitForClose() async -> UInt16? {
        _ = await server.waitUntil { server.closeFrame != nil }
        return server.closeFrame?.code
    }

    /// The upgrade is accepted.
    func open() { server.accept() }
    func text(_ t: String) { server.sendText(t) }
    func binary(_ b: [UInt8]) { server.sendBinary(b) }
    /// The connection is reset.
    func end() { server.reset() }

    /// Opens and sends the Engine.IO open packet.
    func handshake(pingInterval: Int = 25000, pingTimeout: Int = 20000, maxPayload: Int = 1_000_000) {
        open()
        text(#"0{"sid":"eio1","upgrades":[],"pingInterval":\#(pingInterval),"pingTimeout":\#(pingTimeout),"maxPayload":\#(maxPayload)}"#)
    }

    /// Hands out the server of each attempt, in order, on one embedded network.
    final class Factory: Sendable {
        let network = EmbeddedNetwork()

        deinit { network.shutdown() }

        /// The server of attempt `number` (1-based), once the client made its connection.
        func attempt(_ number: Int) async -> EmbeddedEngineIOServer {
            await network.waitForTransport(number - 1)
            guard let server = network.webSocketServer(number - 1) else { preconditionFailure("no attempt \(number)") }
            return EmbeddedEngineIOServer(server: server)
        }

        var count: Int { network.connectionCount }
    }
}
#endif

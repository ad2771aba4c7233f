#if os(Linux)
import Realtime
import RealtimeTestServer

/// Byte-exact server behaviour for the hostile suites: a WebSocket opening handshake with any
/// head, and frames with any header, written through a test-server handler.
extension ResponseWriter {
    /// The `Sec-WebSocket-Accept` value the client expects.
    var webSocketAccept: String { TestServer.webSocketAccept(forKey: request.headers["Sec-WebSocket-Key"] ?? "") }

    /// Completes the opening handshake with a correct 101 plus `extraHeaders` (each line
    /// ending in CRLF), e.g. a `Sec-WebSocket-Extensions` answer.
    func acceptWebSocket(extraHeaders: String = "") throws {
        try writeRawHead(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(webSocketAccept)\r\n\(extraHeaders)\r\n",
            framing: .none)
    }

    /// One unmasked frame with `header`'s bits and `payload` (the length is the payload's).
    func writeFrame(_ header: WebSocketFrameHeader, _ payload: [UInt8]) throws {
        var header = header
        header.payloadLength = payload.count
        var frame: [UInt8] = []
        payload.withUnsafeBytes { WebSocketFrameEncoder.encode(header: header, payload: $0, into: &frame) }
        try writeRaw(frame)
    }
}
#endif

import RealtimeCore

extension TestServer {
    /// The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key` (RFC 6455 §4.2.2),
    /// for custom handlers that write a WebSocket handshake byte for byte
    /// (``ResponseWriter/writeRawHead(_:framing:)``) to test a client against a broken server.
    package static func webSocketAccept(forKey key: String) -> String {
        WebSocketHandshake.acceptValue(forKey: key, sha1: WebSocketEndpoint.sha1)
    }
}

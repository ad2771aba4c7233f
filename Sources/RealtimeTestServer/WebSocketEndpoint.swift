import RealtimeCore

/// The `/ws` endpoint (RFC 6455 server side).
enum WebSocketEndpoint {
    static func serve(_ writer: ResponseWriter) throws {
        try BuiltinEndpoints.serveText(writer, status: 501, "WebSocket endpoint not built yet\n")
    }
}

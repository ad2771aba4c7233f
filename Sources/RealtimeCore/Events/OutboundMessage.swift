/// Something the application sends through a transport that supports sending (WebSocket).
public enum OutboundMessage: Sendable, Hashable {
    /// A text message (a WebSocket text frame).
    case text(String)
    /// A binary message (a WebSocket binary frame).
    case binary([UInt8])
    /// A ping control frame; the payload is at most 125 bytes (RFC 6455 §5.5).
    case ping([UInt8])
}

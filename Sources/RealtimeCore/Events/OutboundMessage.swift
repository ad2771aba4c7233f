/// Something the application sends through a transport that supports sending (WebSocket).
public enum OutboundMessage: Sendable, Hashable {
    case text(String)
    case binary([UInt8])
    /// A ping control frame; the payload is at most 125 bytes (RFC 6455 §5.5).
    case ping([UInt8])
}

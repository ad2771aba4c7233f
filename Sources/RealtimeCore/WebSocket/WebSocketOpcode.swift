/// The 4-bit frame opcode (RFC 6455 §5.2, §11.8).
///
/// Only the six opcodes RFC 6455 defines exist here: the decoder fails the connection with
/// close code 1002 on any other value (§5.2 "If an unknown opcode is received, the receiving
/// endpoint MUST _Fail the WebSocket Connection_").
@usableFromInline package enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) carry at most 125 bytes and are never fragmented
    /// (RFC 6455 §5.5).
    @inlinable
    package var isControl: Bool { rawValue & 0x8 != 0 }

    @usableFromInline package var description: String {
        switch self {
        case .continuation: return "continuation"
        case .text: return "text"
        case .binary: return "binary"
        case .close: return "close"
        case .ping: return "ping"
        case .pong: return "pong"
        }
    }
}

import RealtimeCore

extension OutboundMessage {
    /// Payload bytes the message counts for in the outbound queue's byte bound.
    var payloadSize: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes): return bytes.count
        case .ping(let payload): return payload.count
        }
    }
}

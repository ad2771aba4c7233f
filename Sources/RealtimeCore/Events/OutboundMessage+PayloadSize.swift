extension OutboundMessage {
    /// Payload bytes the message counts for in an outbound queue's byte bound.
    package var payloadSize: Int {
        switch self {
        case .text(let text): return text.utf8.count
        case .binary(let bytes): return bytes.count
        case .ping(let payload): return payload.count
        }
    }
}

import RealtimeCore
import RealtimeLLM
import RealtimeTestSupport
import Testing

/// Golden server events of a WebSocket format and what a decoder makes of them, checked under
/// every chunking of the bytes on the wire: each event is a text frame (the longer ones split
/// into a text frame and continuation frames, with a ping between them, as RFC 6455 §5.4
/// allows), and the client's receiver reassembles them whatever the reads were.
enum WebSocketTranscript {
    /// The server's frames for `events`.
    static func wire(_ events: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for event in events {
            let payload = Array(event.utf8)
            guard payload.count > 40 else {
                bytes += frame(.text, payload[...], fin: true)
                continue
            }
            let cut = payload.count / 3
            bytes += frame(.text, payload[..<cut], fin: false)
            bytes += frame(.ping, [0x70][...], fin: true)
            bytes += frame(.continuation, payload[cut..<(2 * cut)], fin: false)
            bytes += frame(.continuation, payload[(2 * cut)...], fin: true)
        }
        return bytes
    }

    private static func frame(_ opcode: WebSocketOpcode, _ payload: ArraySlice<UInt8>, fin: Bool) -> [UInt8] {
        let header = WebSocketFrameHeader(fin: fin, opcode: opcode, maskingKey: nil, payloadLength: payload.count)
        var out: [UInt8] = []
        Array(payload).withUnsafeBytes { WebSocketFrameEncoder.encode(header: header, payload: $0, into: &out) }
        return out
    }

    /// The messages the client receives from `bytes` read in `chunking`'s pieces.
    static func messages(_ bytes: [UInt8], chunking: Chunking) throws(RealtimeError) -> [Message] {
        var receiver = WebSocketReceiver(role: .client)
        var messages: [Message] = []
        for chunk in chunking.split(bytes) {
            for output in try receiver.receive(chunk) {
                if let message = output.message { messages.append(message) }
            }
        }
        return messages
    }

    /// Decodes `events` with a fresh `decoder` under every chunking; expects the same deltas
    /// (and the same thrown error, if any) each time, every event received as one message,
    /// and returns them.
    static func decode<D: LLMStreamDecoder>(
        _ events: [String], with decoder: D, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (deltas: [LLMDelta], error: RealtimeError?) {
        let bytes = wire(events)
        return try SSETranscript.decodeEach(Chunking.all + [.fixed(7)], with: decoder, sourceLocation: sourceLocation) {
            (chunking) throws(RealtimeError) in
            let received = try messages(bytes, chunking: chunking)
            #expect(received.count == events.count, sourceLocation: sourceLocation)
            return received
        }
    }
}

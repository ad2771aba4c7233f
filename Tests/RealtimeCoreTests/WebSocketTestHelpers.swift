import RealtimeCore
import RealtimeTestSupport

/// Shared drivers: every decoder test runs its input through each `Chunking`.
enum WebSocketTestHelpers {
    static func decode(_ bytes: [UInt8], role: WebSocketRole = .client, chunking: Chunking,
                       maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
                       reservedBits: UInt8 = 0) throws(RealtimeError) -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: role, maxFrameSize: maxFrameSize, allowedReservedBits: reservedBits)
        var frames: [WebSocketFrame] = []
        for chunk in chunking.split(bytes) { frames += try decoder.decode(chunk) }
        return frames
    }

    static func receive(_ bytes: [UInt8], role: WebSocketRole = .client, chunking: Chunking,
                        maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
                        maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize) throws(RealtimeError) -> [WebSocketMessageAssembler.Output] {
        var receiver = WebSocketReceiver(role: role, maxFrameSize: maxFrameSize, maxMessageSize: maxMessageSize)
        var out: [WebSocketMessageAssembler.Output] = []
        for chunk in chunking.split(bytes) { out += try receiver.receive(chunk) }
        return out
    }

    /// The error `receive` throws (nil when none), checked to be the same for every chunking.
    static func receiveError(_ bytes: [UInt8], role: WebSocketRole = .client,
                             maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
                             maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize) -> [RealtimeError?] {
        Chunking.all.map { chunking -> RealtimeError? in
            do throws(RealtimeError) {
                _ = try receive(bytes, role: role, chunking: chunking, maxFrameSize: maxFrameSize, maxMessageSize: maxMessageSize)
                return nil
            } catch {
                return error
            }
        }
    }

    /// A server-to-client (unmasked) frame, or a masked one when `key` is given.
    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0,
                      key: WebSocketMaskingKey? = nil) -> [UInt8] {
        var header = WebSocketFrameHeader(fin: fin, opcode: opcode, maskingKey: key, payloadLength: payload.count)
        header.rsv1 = rsv & 0x40 != 0
        header.rsv2 = rsv & 0x20 != 0
        header.rsv3 = rsv & 0x10 != 0
        var out: [UInt8] = []
        payload.withUnsafeBytes { WebSocketFrameEncoder.encode(header: header, payload: $0, into: &out) }
        return out
    }

    static func closePayload(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
    }
}

/// One WebSocket frame: header fields and its payload (RFC 6455 §5.2).
///
/// The decoder returns frames with their payload **unmasked** and `maskingKey` telling whether
/// the frame was masked on the wire; the encoder masks `payload` with `maskingKey` when one is set.
@usableFromInline package struct WebSocketFrame: Sendable, Hashable {
    @usableFromInline package var fin: Bool
    @usableFromInline package var rsv1: Bool
    @usableFromInline package var rsv2: Bool
    @usableFromInline package var rsv3: Bool
    @usableFromInline package var opcode: WebSocketOpcode
    @usableFromInline package var maskingKey: WebSocketMaskingKey?
    /// Application data, never masked in memory.
    @usableFromInline package var payload: [UInt8]

    @usableFromInline package init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
        opcode: WebSocketOpcode, maskingKey: WebSocketMaskingKey? = nil, payload: [UInt8] = []
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payload = payload
    }

    @usableFromInline package init(header: WebSocketFrameHeader, payload: [UInt8]) {
        self.init(
            fin: header.fin, rsv1: header.rsv1, rsv2: header.rsv2, rsv3: header.rsv3,
            opcode: header.opcode, maskingKey: header.maskingKey, payload: payload)
    }

    /// The header that describes this frame on the wire.
    @usableFromInline package var header: WebSocketFrameHeader {
        WebSocketFrameHeader(
            fin: fin, rsv1: rsv1, rsv2: rsv2, rsv3: rsv3, opcode: opcode, maskingKey: maskingKey,
            payloadLength: payload.count)
    }
}

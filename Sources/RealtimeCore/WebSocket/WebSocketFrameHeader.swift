/// The fixed part of a frame, before its payload (RFC 6455 §5.2).
@usableFromInline package struct WebSocketFrameHeader: Sendable, Hashable {
    /// The final fragment of a message (always set on control frames).
    @usableFromInline package var fin: Bool
    /// RSV1 (permessage-deflate's "compressed" bit, RFC 7692 §6).
    @usableFromInline package var rsv1: Bool
    @usableFromInline package var rsv2: Bool
    @usableFromInline package var rsv3: Bool
    @usableFromInline package var opcode: WebSocketOpcode
    /// Present when the frame is masked (every client-to-server frame).
    @usableFromInline package var maskingKey: WebSocketMaskingKey?
    /// Payload length in bytes.
    @usableFromInline package var payloadLength: Int

    @usableFromInline package init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
        opcode: WebSocketOpcode, maskingKey: WebSocketMaskingKey? = nil, payloadLength: Int
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payloadLength = payloadLength
    }

    /// The RSV bits as they sit in the first header byte (0x40 RSV1, 0x20 RSV2, 0x10 RSV3).
    @inlinable
    package var reservedBits: UInt8 {
        (rsv1 ? 0x40 : 0) | (rsv2 ? 0x20 : 0) | (rsv3 ? 0x10 : 0)
    }

    /// Bytes this header occupies on the wire: 2, plus 2 or 8 for the extended length,
    /// plus 4 for the masking key.
    @inlinable
    package var encodedSize: Int {
        let ext = payloadLength < 126 ? 0 : (payloadLength <= 0xFFFF ? 2 : 8)
        return 2 + ext + (maskingKey == nil ? 0 : 4)
    }
}

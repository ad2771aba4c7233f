/// Writes frames to wire bytes (RFC 6455 §5.2), masking them in the `.client` role.
///
/// A `.client` encoder draws a fresh masking key for every frame from its injected generator
/// (RFC 6455 §5.3; `SystemRandomNumberGenerator` by default, a seeded one in tests); a
/// `.server` encoder never masks. The payload is appended with one `memcpy` and masked in place
/// while still in cache, a machine word at a time (``WebSocketMaskingKey/apply(from:to:count:phase:)``).
///
/// Lengths always use the minimal encoding (7, 16 or 64 bits). The encoder does not enforce
/// message rules: callers send control payloads of at most 125 bytes (checked here, since a
/// longer one would be a bug) and never interleave data frames of two messages.
package struct WebSocketFrameEncoder: Sendable {
    package let role: WebSocketRole
    private var generator: any RandomNumberGenerator & Sendable

    package init(role: WebSocketRole, generator: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.role = role
        self.generator = generator
    }

    /// Appends one frame, masked with a new key when the role is `.client`.
    package mutating func encode(
        opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true, rsv1: Bool = false,
        into output: inout [UInt8]
    ) {
        let key: WebSocketMaskingKey? = role == .client ? WebSocketMaskingKey(using: &generator) : nil
        let header = WebSocketFrameHeader(fin: fin, rsv1: rsv1, opcode: opcode, maskingKey: key, payloadLength: payload.count)
        Self.encode(header: header, payload: payload, into: &output)
    }

    /// Appends one frame (see ``encode(opcode:payload:fin:rsv1:into:)-(_,UnsafeRawBufferPointer,_,_,_)``).
    package mutating func encode(
        opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true, rsv1: Bool = false,
        into output: inout [UInt8]
    ) {
        if let done: Void = payload.withContiguousStorageIfAvailable({
            encode(opcode: opcode, payload: UnsafeRawBufferPointer($0), fin: fin, rsv1: rsv1, into: &output)
        }) {
            return done
        }
        Array(payload).withUnsafeBytes { encode(opcode: opcode, payload: $0, fin: fin, rsv1: rsv1, into: &output) }
    }

    /// One frame as a new array.
    package mutating func encode(opcode: WebSocketOpcode, payload: some Collection<UInt8>, fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        encode(opcode: opcode, payload: payload, fin: fin, into: &out)
        return out
    }

    /// A text message in one frame.
    package mutating func text(_ string: String) -> [UInt8] { encode(opcode: .text, payload: string.utf8) }

    /// A binary message in one frame.
    package mutating func binary(_ bytes: some Collection<UInt8>) -> [UInt8] { encode(opcode: .binary, payload: bytes) }

    /// A ping; `payload` must be at most 125 bytes (RFC 6455 §5.5).
    package mutating func ping(_ payload: some Collection<UInt8> = [UInt8]()) -> [UInt8] {
        precondition(payload.count <= 125, "control frame payloads are at most 125 bytes (RFC 6455 §5.5)")
        return encode(opcode: .ping, payload: payload)
    }

    /// A pong; answer a ping with its payload (RFC 6455 §5.5.3).
    package mutating func pong(_ payload: some Collection<UInt8> = [UInt8]()) -> [UInt8] {
        precondition(payload.count <= 125, "control frame payloads are at most 125 bytes (RFC 6455 §5.5)")
        return encode(opcode: .pong, payload: payload)
    }

    /// A close frame (RFC 6455 §5.5.1): empty when `code` is nil, else the code in network order
    /// and the reason, cut to fit 125 bytes at a code point boundary.
    package mutating func close(code: UInt16?, reason: String = "") -> [UInt8] {
        encode(opcode: .close, payload: Self.closePayload(code: code, reason: reason))
    }

    /// The payload of a close frame; the reason is truncated to 123 bytes at a code point boundary.
    package static func closePayload(code: UInt16?, reason: String) -> [UInt8] {
        guard let code else { return [] }
        var out: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 {
            var cut = 123
            while cut > 0 && reasonBytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            reasonBytes.removeSubrange(cut...)
        }
        out += reasonBytes
        return out
    }

    /// Appends `header` and `payload` (masked with `header.maskingKey` when set); the header's
    /// `payloadLength` must equal `payload.count`. Usable without an encoder instance, e.g. to
    /// produce golden frames or deliberately odd frames in a test server.
    package static func encode(header: WebSocketFrameHeader, payload: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        precondition(header.payloadLength == payload.count, "header length must match the payload")
        precondition(!header.opcode.isControl || (payload.count <= 125 && header.fin),
                     "control frames are unfragmented and at most 125 bytes (RFC 6455 §5.5)")
        let n = payload.count
        let headerSize = header.encodedSize
        let start = output.count
        output.reserveCapacity(start + headerSize + n)
        output.append((header.fin ? 0x80 : 0) | header.reservedBits | header.opcode.rawValue)
        let maskBit: UInt8 = header.maskingKey == nil ? 0 : 0x80
        if n < 126 {
            output.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(n >> 8))
            output.append(UInt8(n & 0xFF))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: UInt64(n) >> UInt64(shift))) }
        }
        if let key = header.maskingKey {
            output.append(key[0]); output.append(key[1]); output.append(key[2]); output.append(key[3])
        }
        guard n > 0 else { return }
        let payloadStart = output.count
        // Appending from a raw buffer is a memcpy in every build mode, then the mask is applied
        // in place. (Growing with `repeatElement(0, count: n)` first is a per-byte generic loop
        // in debug builds: 12 s for a 10 MiB frame in `swift test`.)
        output.append(contentsOf: payload.assumingMemoryBound(to: UInt8.self))
        if let key = header.maskingKey {
            output.withUnsafeMutableBytes { out in
                let dst = out.baseAddress! + payloadStart
                key.apply(from: UnsafeRawPointer(dst), to: dst, count: n)
            }
        }
    }

    /// Appends `frame` as it is: masked with `frame.maskingKey` when set, whatever the role.
    package static func encode(_ frame: WebSocketFrame, into output: inout [UInt8]) {
        frame.payload.withUnsafeBytes { encode(header: frame.header, payload: $0, into: &output) }
    }
}

/// A streaming frame decoder (RFC 6455 §5.2): feed it bytes as they arrive, take frames out.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(role: .client)
/// try readBuffer.withUnsafeBytes { raw in
///     var input = raw
///     while let frame = try decoder.next(from: &input) { … }
/// }   // `input` is empty here: the decoder keeps any partial frame itself
/// ```
///
/// It enforces the **framing** rules and nothing about messages (the
/// ``WebSocketMessageAssembler`` does that): every violation throws a ``RealtimeError`` whose
/// `closeCode` is the code to close with, and the decoder stays failed afterwards.
/// - masking (§5.1): a `.client` rejects masked frames, a `.server` rejects unmasked ones (1002);
/// - RSV1–3 set without a negotiated extension that defines them (§5.2) → 1002;
/// - RSV1 (permessage-deflate) on a control or continuation frame (RFC 7692 §6.1) → 1002;
/// - an unknown opcode (§5.2) → 1002;
/// - a control frame longer than 125 bytes or without FIN (§5.5) → 1002;
/// - a 64-bit length with its most significant bit set (§5.2) → 1002;
/// - a payload longer than ``maxFrameSize`` → `frameTooLarge`, 1009 (§7.4.1), thrown as soon as
///   the header is read, before any payload is buffered.
///
/// Lengths encoded with more bytes than needed are accepted (RFC 6455 §5.2 says "the minimal
/// number of bytes MUST be used" for senders but gives receivers no rule to enforce).
///
/// Copies: each payload byte is copied once, from the caller's buffer into the frame's array
/// (and unmasked in place in the `.server` role). Header bytes that arrive split are staged
/// in a 14-byte inline buffer, never in a growing array.
@usableFromInline package struct WebSocketFrameDecoder: Sendable {
    /// The default ``maxFrameSize``: 16 MiB. Large enough for a 16 MiB single-frame message
    /// (the largest the Autobahn suite sends, case 9.1.6), small enough that one frame can't
    /// make a client buffer an unbounded amount of memory.
    @usableFromInline package static let defaultMaxFrameSize = 16 * 1024 * 1024

    /// Which end we are; decides the masking rule.
    @usableFromInline package let role: WebSocketRole
    /// Largest payload accepted in one frame, in bytes. Default ``defaultMaxFrameSize``.
    @usableFromInline package var maxFrameSize: Int
    /// RSV bits a negotiated extension allows (0x40 = RSV1 for permessage-deflate); any other
    /// set RSV bit fails the connection. Default 0 (no extension).
    @usableFromInline package var allowedReservedBits: UInt8

    /// Header bytes received so far (at most 14).
    private var staged = SIMD16<UInt8>()
    private var stagedCount = 0
    /// The header of the frame whose payload is being received.
    private var current: WebSocketFrameHeader?
    private var payload: [UInt8] = []
    private var failure: RealtimeError?

    @usableFromInline package init(
        role: WebSocketRole, maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
        allowedReservedBits: UInt8 = 0
    ) {
        self.role = role
        self.maxFrameSize = maxFrameSize
        self.allowedReservedBits = allowedReservedBits
    }

    /// The header of a frame whose payload has only partly arrived, and how much has.
    @usableFromInline package var partialFrame: (header: WebSocketFrameHeader, received: Int)? {
        current.map { ($0, payload.count) }
    }

    /// Calls `body` with the partial frame's header and its (unmasked) payload so far; nil when
    /// no frame is in progress. Lets a caller validate a large text frame before it completes.
    @usableFromInline package func withPartialPayload<R, E: Error>(
        _ body: (WebSocketFrameHeader, UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R? {
        guard let current else { return nil }
        return try withPayloadBytes(payload) { (raw: UnsafeRawBufferPointer) throws(E) -> R in try body(current, raw) }
    }

    /// Consumes bytes from the front of `input` until one frame is complete and returns it, or
    /// returns nil with `input` empty when more bytes are needed.
    @usableFromInline package mutating func next(from input: inout UnsafeRawBufferPointer) throws(RealtimeError) -> WebSocketFrame? {
        if let failure { throw failure }
        do throws(RealtimeError) {
            return try decode(&input)
        } catch {
            failure = error
            throw error
        }
    }

    /// The payload of a whole unmasked text frame from a server (FIN, no RSV bit, at most
    /// `limit` and ``maxFrameSize`` bytes) at the front of `input`, with nothing of an earlier
    /// frame pending, and `input` moved past it; nil, `input` untouched, for anything else
    /// (which ``next(from:)`` then decodes). The payload stays in the caller's buffer.
    @usableFromInline package mutating func wholeTextFrame(from input: inout UnsafeRawBufferPointer, limit: Int) -> UnsafeRawBufferPointer? {
        guard failure == nil, current == nil, stagedCount == 0, role == .client, input.count >= 2, input[0] == 0x81,
            let size = try? Self.headerSize(input, role: role), input.count >= size,
            let header = try? parseHeader(input), header.maskingKey == nil,
            header.payloadLength <= limit, input.count - size >= header.payloadLength
        else { return nil }
        let end = size + header.payloadLength
        let payload = UnsafeRawBufferPointer(rebasing: input[size..<end])
        input = UnsafeRawBufferPointer(rebasing: input[end...])
        return payload
    }

    /// Decodes every complete frame in `bytes`, keeping a trailing partial frame for the next
    /// call. Convenient for tests and small inputs.
    @usableFromInline package mutating func decode(_ bytes: some Collection<UInt8>) throws(RealtimeError) -> [WebSocketFrame] {
        var frames: [WebSocketFrame] = []
        let array = Array(bytes)
        try withPayloadBytes(array) { (raw: UnsafeRawBufferPointer) throws(RealtimeError) in
            var input = raw
            while let frame = try next(from: &input) { frames.append(frame) }
        }
        return frames
    }

    // MARK: - Implementation

    private mutating func decode(_ input: inout UnsafeRawBufferPointer) throws(RealtimeError) -> WebSocketFrame? {
        while true {
            if let header = current {
                let missing = header.payloadLength - payload.count
                let take = min(missing, input.count)
                if take > 0 {
                    let phase = payload.count
                    let chunk = UnsafeRawBufferPointer(rebasing: input[..<take])
                    payload.append(contentsOf: chunk.assumingMemoryBound(to: UInt8.self))
                    if let key = header.maskingKey {
                        payload.withUnsafeMutableBytes { all in
                            key.apply(to: UnsafeMutableRawBufferPointer(rebasing: all[phase...]), phase: phase)
                        }
                    }
                    input = UnsafeRawBufferPointer(rebasing: input[take...])
                }
                guard payload.count == header.payloadLength else { return nil }
                current = nil
                let body = payload
                payload = []
                return WebSocketFrame(header: header, payload: body)
            }
            if input.isEmpty { return nil }

            // Fastest path: a small unmasked frame from a server, without RSV bits, complete in
            // `input` — most frames of a chatty feed. Anything unusual takes the general path below.
            if stagedCount == 0, role == .client, input.count >= 2 {
                let b0 = input[0], b1 = input[1]
                let n = Int(b1)  // < 126 and no mask bit, checked next
                if b1 < 126, b0 & 0x70 == 0, input.count >= 2 &+ n, n <= maxFrameSize,
                   let opcode = WebSocketOpcode(rawValue: b0 & 0x0F), !opcode.isControl || b0 & 0x80 != 0 {
                    let body = Array(UnsafeRawBufferPointer(rebasing: input[2..<2 &+ n]).assumingMemoryBound(to: UInt8.self))
                    input = UnsafeRawBufferPointer(rebasing: input[(2 &+ n)...])
                    return WebSocketFrame(fin: b0 & 0x80 != 0, opcode: opcode, payload: body)
                }
            }

            // Fast path: the whole header is in `input` (the usual case).
            if stagedCount == 0, let size = try Self.headerSize(input, role: role), input.count >= size {
                let header = try parseHeader(input)
                input = UnsafeRawBufferPointer(rebasing: input[size...])
                if input.count >= header.payloadLength {
                    // The whole payload is here too: one allocation, one copy. (`Array(_:)` from a
                    // buffer pointer is specialised; `init(unsafeUninitializedCapacity:)` costs a
                    // runtime metadata lookup per call, which dominates for small frames.)
                    let n = header.payloadLength
                    var body = Array(UnsafeRawBufferPointer(rebasing: input[..<n]).assumingMemoryBound(to: UInt8.self))
                    if let key = header.maskingKey { key.apply(to: &body) }
                    input = UnsafeRawBufferPointer(rebasing: input[n...])
                    return WebSocketFrame(header: header, payload: body)
                }
                beginPayload(header)
                continue
            }

            // Slow path: stage header bytes one at a time until the header is complete.
            staged[stagedCount] = input[0]
            stagedCount += 1
            input = UnsafeRawBufferPointer(rebasing: input[1...])
            let header: WebSocketFrameHeader? = try withUnsafeBytes(of: staged) { (raw: UnsafeRawBufferPointer) throws(RealtimeError) -> WebSocketFrameHeader? in
                let have = UnsafeRawBufferPointer(rebasing: raw[..<stagedCount])
                guard let size = try Self.headerSize(have, role: role), have.count >= size else { return nil }
                return try parseHeader(have)
            }
            if let header {
                stagedCount = 0
                beginPayload(header)
            }
        }
    }

    private mutating func beginPayload(_ header: WebSocketFrameHeader) {
        current = header
        // Reserve the whole payload up front: it is bounded by maxFrameSize and saves the
        // re-copies of geometric growth.
        payload = []
        payload.reserveCapacity(header.payloadLength)
    }

    /// The full header size once the first two bytes are known; checks those bytes' rules first so
    /// a bad frame fails before the rest of its header arrives. nil when fewer than 2 bytes.
    private static func headerSize(_ bytes: UnsafeRawBufferPointer, role: WebSocketRole) throws(RealtimeError) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let b1 = bytes[1]
        let masked = b1 & 0x80 != 0
        switch role {
        case .client where masked:
            throw .protocolViolation("masked frame from server (RFC 6455 §5.1)")
        case .server where !masked:
            throw .protocolViolation("unmasked frame from client (RFC 6455 §5.1)")
        default: break
        }
        let len7 = b1 & 0x7F
        let ext = len7 == 126 ? 2 : (len7 == 127 ? 8 : 0)
        return 2 + ext + (masked ? 4 : 0)
    }

    private func parseHeader(_ bytes: UnsafeRawBufferPointer) throws(RealtimeError) -> WebSocketFrameHeader {
        let b0 = bytes[0], b1 = bytes[1]
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else {
            throw .protocolViolation("unknown opcode \(b0 & 0x0F) (RFC 6455 §5.2)")
        }
        let rsv = b0 & 0x70
        if rsv & ~allowedReservedBits != 0 {
            throw .protocolViolation("reserved bits set without a negotiated extension (RFC 6455 §5.2)")
        }
        // permessage-deflate's RSV1 marks the first frame of a compressed message: never a
        // control frame (RFC 7692 §6.1) nor a continuation frame (§6.1: "on the first frame").
        if rsv & 0x40 != 0, opcode.isControl || opcode == .continuation {
            throw .protocolViolation("RSV1 set on a control or continuation frame (RFC 7692 §6.1)")
        }
        let fin = b0 & 0x80 != 0
        let len7 = Int(b1 & 0x7F)
        var offset = 2
        var length: UInt64
        switch len7 {
        case 126:
            length = UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            offset = 4
        case 127:
            length = 0
            for k in 2..<10 { length = length << 8 | UInt64(bytes[k]) }
            guard length >> 63 == 0 else {
                throw .protocolViolation("64-bit payload length with the most significant bit set (RFC 6455 §5.2)")
            }
            offset = 10
        default:
            length = UInt64(len7)
        }
        if opcode.isControl {
            guard fin else { throw .protocolViolation("fragmented control frame (RFC 6455 §5.5)") }
            guard length <= 125 else { throw .protocolViolation("control frame longer than 125 bytes (RFC 6455 §5.5)") }
        }
        guard length <= UInt64(maxFrameSize) else {
            throw RealtimeError(.frameTooLarge, detail: "frame of \(length) bytes exceeds maxFrameSize \(maxFrameSize)", closeCode: 1009)
        }
        var key: WebSocketMaskingKey?
        if b1 & 0x80 != 0 {
            key = WebSocketMaskingKey(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
        }
        return WebSocketFrameHeader(
            fin: fin, rsv1: rsv & 0x40 != 0, rsv2: rsv & 0x20 != 0, rsv3: rsv & 0x10 != 0,
            opcode: opcode, maskingKey: key, payloadLength: Int(length))
    }
}

/// `withUnsafeBytes` with a typed error (the stdlib's rethrows erases it to `any Error`).
func withPayloadBytes<R, E: Error>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
    let result: Result<R, E> = bytes.withUnsafeBytes { raw in
        do throws(E) { return .success(try body(raw)) } catch { return .failure(error) }
    }
    return try result.get()
}

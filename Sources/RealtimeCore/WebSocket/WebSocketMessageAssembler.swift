/// Turns decoded frames into messages and control events, enforcing the message-level rules
/// of RFC 6455 (the ``WebSocketFrameDecoder`` enforces the framing rules).
///
/// - Fragmentation (§5.4): a continuation frame without a started message, or a new text or
///   binary frame while one is unfinished → `protocolViolation`, close code 1002. Control frames
///   may arrive between the fragments of a message and are delivered at once.
/// - Size: a message longer than ``maxMessageSize`` → `messageTooLarge`, 1009, thrown as soon
///   as a frame header announces that it would cross the limit (see ``inspectPartialFrame(_:payload:)``).
/// - Text (§8.1): validated **incrementally** with ``UTF8Validator`` as fragments (or even parts
///   of a frame) arrive; invalid UTF-8 → `invalidUTF8`, 1007, as soon as it is certain.
/// - Close (§5.5.1, §7.4): a 1-byte payload or a code that is not valid on the wire → 1002;
///   a reason that is not UTF-8 → 1007. Frames after a close frame are discarded (the closing
///   handshake has begun; §1.4 — a ping then gets no pong, a message is not delivered).
///
/// Every error carries `closeCode`: the transport sends a close frame with that code, then
/// drops the connection. The assembler stays failed afterwards.
@usableFromInline package struct WebSocketMessageAssembler: Sendable {
    /// The default ``maxMessageSize``: 64 MiB. Four times the largest frame the decoder accepts
    /// by default, room for the 16 MiB messages of the Autobahn suite (cases 9.x) whether sent
    /// whole or fragmented, and a hard bound on what one message can make a client buffer.
    @usableFromInline package static let defaultMaxMessageSize = 64 * 1024 * 1024

    /// What the caller receives.
    ///
    /// Equal outputs are the same event: `.string(s)` equals `.text` of the same bytes.
    @usableFromInline package enum Output: Sendable, Hashable {
        /// A complete text message; its bytes are valid UTF-8.
        case text([UInt8])
        /// A complete text message that arrived as one frame in one read, made a `String`
        /// straight from the read buffer (see ``wholeText(_:)``).
        case string(String)
        /// A complete binary message.
        case binary([UInt8])
        /// A ping: the caller must answer with a pong carrying the same payload (RFC 6455 §5.5.2),
        /// as soon as practical (only the most recent ping needs an answer).
        case ping([UInt8])
        /// A pong (an answer to our ping, or an unsolicited heartbeat).
        case pong([UInt8])
        /// The server started (or answered) the closing handshake. `code` is nil when the frame
        /// had no payload (report 1005, "no status received"). A client answers with a close frame
        /// echoing the code (RFC 6455 §5.5.1) unless it sent one already.
        case close(code: UInt16?, reason: String)

        /// The message as the SDK's ``Message`` (nil for control events).
        @usableFromInline package var message: Message? {
            switch self {
            case .text(let bytes): return Message(content: .text(String(decoding: bytes, as: UTF8.self)))
            case .string(let text): return Message(content: .text(text))
            case .binary(let bytes): return Message(content: .binary(bytes))
            default: return nil
            }
        }

        /// The event with a text message's bytes in one form (what equality compares).
        private var canonical: Canonical {
            switch self {
            case .text(let bytes): .text(bytes)
            case .string(let text): .text(Array(text.utf8))
            case .binary(let bytes): .binary(bytes)
            case .ping(let payload): .ping(payload)
            case .pong(let payload): .pong(payload)
            case .close(let code, let reason): .close(code, reason)
            }
        }

        private enum Canonical: Hashable {
            case text([UInt8]), binary([UInt8]), ping([UInt8]), pong([UInt8]), close(UInt16?, String)
        }

        @usableFromInline package static func == (a: Output, b: Output) -> Bool { a.canonical == b.canonical }
        @usableFromInline package func hash(into hasher: inout Hasher) { hasher.combine(canonical) }
    }

    /// Largest message accepted, in bytes (the sum of its fragments). Default ``defaultMaxMessageSize``.
    @usableFromInline package var maxMessageSize: Int

    /// Opcode of the message being reassembled (text or binary), nil between messages.
    private var messageOpcode: WebSocketOpcode?
    private var fragments: [UInt8] = []
    private var utf8 = UTF8Validator()
    /// Bytes of the frame in progress already validated by ``inspectPartialFrame(_:payload:)``.
    private var inspected = 0
    private var closed = false
    private var failure: RealtimeError?

    @usableFromInline package init(maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize) {
        self.maxMessageSize = maxMessageSize
    }

    /// Between messages, neither failed nor closed: a whole text frame may skip the frame
    /// and go to ``wholeText(_:)``.
    @usableFromInline package var acceptsWholeText: Bool {
        messageOpcode == nil && inspected == 0 && !closed && failure == nil
    }

    /// A whole text message (one frame, FIN, uncompressed, within ``maxMessageSize``) read
    /// where it lies in the read buffer and copied once, into the `String`, with no
    /// intermediate byte array. Invalid UTF-8 fails as in ``receive(_:)`` (1007).
    @usableFromInline package mutating func wholeText(_ payload: UnsafeRawBufferPointer) throws(RealtimeError) -> Output {
        let text: String?
        if payload.count <= 128 {
            // Short: the SIMD validator and a plain copy cost less than the generic
            // validating initialiser's setup (measured in `ws-codec/decode-16B-text`).
            var validator = UTF8Validator()
            let valid = validator.validate(payload) && validator.finish()
            text = valid ? String(decoding: payload.assumingMemoryBound(to: UInt8.self), as: UTF8.self) : nil
        } else {
            // Longer: validated while copied, one pass (`ws-codec/decode-64KiB-*-text`).
            text = String(validating: payload, as: UTF8.self)
        }
        guard let text else {
            failure = Self.invalidText
            throw Self.invalidText
        }
        return .string(text)
    }

    /// Early checks on a frame that has not fully arrived: the fragmentation rules and size limit
    /// from its header, and UTF-8 validity of the text received so far. Optional — ``receive(_:)``
    /// enforces everything on the complete frame — but it makes the connection fail as soon as a
    /// violation is certain instead of after a possibly huge frame (Autobahn 6.4.x).
    /// Call it with the decoder's ``WebSocketFrameDecoder/withPartialPayload(_:)``.
    @usableFromInline package mutating func inspectPartialFrame(_ header: WebSocketFrameHeader, payload: UnsafeRawBufferPointer) throws(RealtimeError) {
        if let failure { throw failure }
        if closed { return }
        do throws(RealtimeError) {
            try checkStart(header)
            guard !header.opcode.isControl else { return }
            guard isText(header), payload.count > inspected else { return }
            if inspected == 0 && header.opcode == .text { utf8.reset() }
            let fresh = UnsafeRawBufferPointer(rebasing: payload[inspected...])
            inspected = payload.count
            guard utf8.validate(fresh) else { throw Self.invalidText }
        } catch {
            failure = error
            throw error
        }
    }

    /// Takes one complete frame; returns a message or control event, or nil when the frame was a
    /// fragment of an unfinished message.
    @usableFromInline package mutating func receive(_ frame: consuming WebSocketFrame) throws(RealtimeError) -> Output? {
        if let failure { throw failure }
        // Whatever follows the close frame is discarded (RFC 6455 §1.4, §5.5.1; Autobahn 7.1.x).
        if closed { return nil }
        do throws(RealtimeError) {
            return try process(frame)
        } catch {
            failure = error
            throw error
        }
    }

    // MARK: - Implementation

    private static let invalidText = RealtimeError(.invalidUTF8, detail: "text message is not valid UTF-8 (RFC 6455 §8.1)", closeCode: 1007)

    private func isText(_ header: WebSocketFrameHeader) -> Bool {
        header.opcode == .text || (header.opcode == .continuation && messageOpcode == .text)
    }

    /// Rules decided by a frame's header alone.
    private func checkStart(_ header: WebSocketFrameHeader) throws(RealtimeError) {
        switch header.opcode {
        case .continuation:
            guard messageOpcode != nil else { throw .protocolViolation("continuation frame without a message to continue (RFC 6455 §5.4)") }
        case .text, .binary:
            guard messageOpcode == nil else { throw .protocolViolation("new data frame inside a fragmented message (RFC 6455 §5.4)") }
        case .close, .ping, .pong:
            return
        }
        let sofar = header.opcode == .continuation ? fragments.count : 0
        if header.payloadLength > maxMessageSize - sofar {
            throw RealtimeError(.messageTooLarge, detail: "message exceeds maxMessageSize \(maxMessageSize)", closeCode: 1009)
        }
    }

    private mutating func process(_ frame: consuming WebSocketFrame) throws(RealtimeError) -> Output? {
        // Fast path: a whole binary message in one frame, between messages.
        if frame.opcode == .binary, frame.fin, messageOpcode == nil, frame.payload.count <= maxMessageSize {
            inspected = 0
            return .binary(frame.payload)
        }
        // Fast path: a whole text message in one frame; continue after any bytes that
        // inspectPartialFrame already validated.
        if frame.opcode == .text, frame.fin, messageOpcode == nil, frame.payload.count <= maxMessageSize {
            let start = inspected
            inspected = 0
            if start == 0 { utf8 = UTF8Validator() }
            let ok = frame.payload.withUnsafeBytes { raw in
                utf8.validate(UnsafeRawBufferPointer(rebasing: raw[start...])) && utf8.finish()
            }
            guard ok else { throw Self.invalidText }
            return .text(frame.payload)
        }
        let header = frame.header
        try checkStart(header)
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close:
            closed = true
            return try Self.parseClose(frame.payload)
        case .text, .binary, .continuation:
            break
        }
        // UTF-8: continue after what inspectPartialFrame already checked of this frame.
        if isText(header) {
            if inspected == 0 && header.opcode == .text { utf8.reset() }
            let ok = withPayloadBytes(frame.payload) { raw in
                utf8.validate(UnsafeRawBufferPointer(rebasing: raw[inspected...]))
            }
            inspected = 0
            guard ok else { throw Self.invalidText }
            if frame.fin && !utf8.finish() { throw Self.invalidText }
        }
        inspected = 0
        if frame.fin {
            let opcode = messageOpcode ?? frame.opcode
            var body: [UInt8]
            if messageOpcode == nil {
                body = frame.payload  // unfragmented: no copy
            } else {
                fragments.append(contentsOf: frame.payload)
                body = fragments
                fragments = []
                messageOpcode = nil
            }
            return opcode == .text ? .text(body) : .binary(body)
        }
        if messageOpcode == nil {
            messageOpcode = frame.opcode
            fragments = frame.payload
        } else {
            fragments.append(contentsOf: frame.payload)
        }
        return nil
    }

    /// Parses and validates a close payload (RFC 6455 §5.5.1, §7.4).
    static func parseClose(_ payload: [UInt8]) throws(RealtimeError) -> Output {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .protocolViolation("close payload of 1 byte (RFC 6455 §5.5.1)") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.isValidOnWire(code) else {
            throw .protocolViolation("close code \(code) is not valid on the wire (RFC 6455 §7.4)")
        }
        let reason = payload[2...]
        guard UTF8Validator.isValid(reason) else {
            throw RealtimeError(.invalidUTF8, detail: "close reason is not valid UTF-8 (RFC 6455 §5.5.1)", closeCode: 1007)
        }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}

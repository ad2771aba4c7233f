/// The receive side of a WebSocket connection in one value, the one pipeline every receiver
/// runs: a ``WebSocketFrameDecoder`` (framing rules), a ``WebSocketFrameInflater``
/// (permessage-deflate, when negotiated), a ``WebSocketMessageAssembler`` (message rules and
/// incremental UTF-8 validation), with the assembler's early checks run on partly received
/// frames.
///
/// ```swift
/// var receiver = WebSocketReceiver(role: .client)
/// try bytes.withUnsafeBytes { raw in
///     var input = raw
///     while let output = try receiver.next(from: &input) {
///         switch output { case .ping(let p): sendPong(p) … }
///     }
/// }
/// ```
/// Errors are ``RealtimeError``s carrying the close code to send (see the parts' docs).
///
/// This module has no zlib: with ``WebSocketNoInflater`` (what `init(role:…)` uses) and
/// `allowedReservedBits: 0x40`, compressed payloads would reach the assembler as they are.
/// The client transport (`RealtimeWebSocket`) passes its zlib inflater once permessage-deflate
/// is agreed.
@usableFromInline package struct WebSocketReceiver<Inflater: WebSocketFrameInflater> {
    @usableFromInline package var decoder: WebSocketFrameDecoder
    @usableFromInline package var inflater: Inflater
    @usableFromInline package var assembler: WebSocketMessageAssembler

    @usableFromInline package init(
        role: WebSocketRole = .client,
        maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
        maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize,
        allowedReservedBits: UInt8 = 0,
        inflater: Inflater
    ) {
        decoder = WebSocketFrameDecoder(role: role, maxFrameSize: maxFrameSize, allowedReservedBits: allowedReservedBits)
        self.inflater = inflater
        assembler = WebSocketMessageAssembler(maxMessageSize: maxMessageSize)
    }

    /// Consumes bytes from `input` until a message or control event is ready and returns it;
    /// returns nil with `input` empty when more bytes are needed.
    @inlinable
    package mutating func next(from input: inout UnsafeRawBufferPointer) throws(RealtimeError) -> WebSocketMessageAssembler.Output? {
        while true {
            // A whole text message in this read: a String from the read buffer, no frame.
            if assembler.acceptsWholeText, let payload = decoder.wholeTextFrame(from: &input, limit: assembler.maxMessageSize) {
                return try assembler.wholeText(payload)
            }
            guard let frame = try decoder.next(from: &input) else { break }
            if let output = try assembler.receive(try inflater.inflate(frame)) { return output }
        }
        // Input exhausted inside a frame: check what we have so far (fail fast), unless it is
        // compressed (its bytes mean nothing until inflated).
        if let (header, _) = decoder.partialFrame, !inflater.isCompressed(header) {
            try decoder.withPartialPayload { (header, payload) throws(RealtimeError) in
                try assembler.inspectPartialFrame(header, payload: payload)
            }
        }
        return nil
    }

    /// Every output `bytes` completes (for tests and simple callers).
    @usableFromInline package mutating func receive(_ bytes: some Collection<UInt8>) throws(RealtimeError) -> [WebSocketMessageAssembler.Output] {
        var outputs: [WebSocketMessageAssembler.Output] = []
        try withPayloadBytes(Array(bytes)) { (raw: UnsafeRawBufferPointer) throws(RealtimeError) in
            var input = raw
            while let output = try next(from: &input) { outputs.append(output) }
        }
        return outputs
    }
}

extension WebSocketReceiver: Sendable where Inflater: Sendable {}

extension WebSocketReceiver where Inflater == WebSocketNoInflater {
    /// A receiver without an extension stage.
    @usableFromInline package init(
        role: WebSocketRole = .client,
        maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
        maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize,
        allowedReservedBits: UInt8 = 0
    ) {
        self.init(
            role: role, maxFrameSize: maxFrameSize, maxMessageSize: maxMessageSize,
            allowedReservedBits: allowedReservedBits, inflater: WebSocketNoInflater())
    }
}

/// The receive side of a WebSocket connection in one value: a ``WebSocketFrameDecoder`` feeding a
/// ``WebSocketMessageAssembler``, with the assembler's early checks run on partly received frames.
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
/// Errors are ``RealtimeError``s carrying the close code to send (see the two parts' docs).
///
/// permessage-deflate is not handled here (this module has no zlib): with
/// `allowedReservedBits: 0x40` compressed payloads would reach the assembler as they are.
/// The client transport (`RealtimeWebSocket`) runs the decoder and assembler itself with its
/// zlib inflater between them.
public struct WebSocketReceiver: Sendable {
    public var decoder: WebSocketFrameDecoder
    public var assembler: WebSocketMessageAssembler

    public init(
        role: WebSocketRole = .client,
        maxFrameSize: Int = WebSocketFrameDecoder.defaultMaxFrameSize,
        maxMessageSize: Int = WebSocketMessageAssembler.defaultMaxMessageSize,
        allowedReservedBits: UInt8 = 0
    ) {
        decoder = WebSocketFrameDecoder(role: role, maxFrameSize: maxFrameSize, allowedReservedBits: allowedReservedBits)
        assembler = WebSocketMessageAssembler(maxMessageSize: maxMessageSize)
    }

    /// Consumes bytes from `input` until a message or control event is ready and returns it;
    /// returns nil with `input` empty when more bytes are needed.
    public mutating func next(from input: inout UnsafeRawBufferPointer) throws(RealtimeError) -> WebSocketMessageAssembler.Output? {
        while let frame = try decoder.next(from: &input) {
            if let output = try assembler.receive(frame) { return output }
        }
        // Input exhausted inside a frame: check what we have so far (fail fast).
        try decoder.withPartialPayload { (header, payload) throws(RealtimeError) in
            try assembler.inspectPartialFrame(header, payload: payload)
        }
        return nil
    }

    /// Every output `bytes` completes (for tests and simple callers).
    public mutating func receive(_ bytes: some Collection<UInt8>) throws(RealtimeError) -> [WebSocketMessageAssembler.Output] {
        var outputs: [WebSocketMessageAssembler.Output] = []
        try withPayloadBytes(Array(bytes)) { (raw: UnsafeRawBufferPointer) throws(RealtimeError) in
            var input = raw
            while let output = try next(from: &input) { outputs.append(output) }
        }
        return outputs
    }
}

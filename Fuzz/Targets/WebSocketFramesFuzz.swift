@testable import RealtimeCore

/// The receive path of a WebSocket connection: ``WebSocketFrameDecoder``, the
/// permessage-deflate inflater and ``WebSocketMessageAssembler``, wired as the transport wires
/// them (partial frames inspected early unless compressed).
///
/// Input: a chunking seed, a configuration byte (role, compression, context takeover), window
/// bits, frame and message limits, then the received bytes. Invariants:
/// - whole and chunked input give the same outputs and the same error (code and close code);
///   ``WebSocketReceiver`` (the pipeline the transport runs) gives them too;
/// - every error names a close code; a failed decoder stays failed;
/// - text and binary messages are at most `maxMessageSize` bytes, ping and pong payloads at
///   most 125, text is valid UTF-8, a close code is valid on the wire and its reason ≤ 123 bytes;
/// - the decoded frames, encoded again, decode to the same frames;
/// - a message deflated by ``WebSocketDeflater`` (fragmented as the input says) inflates back
///   to itself, across several messages with or without context takeover;
/// - a close payload built by the encoder parses back to its code and a prefix of its reason.
enum WebSocketFramesFuzz {
    struct Config {
        var role: WebSocketRole
        var compressed: Bool
        var noContextTakeover: Bool
        var windowBits: Int
        var maxFrameSize: Int
        var maxMessageSize: Int
    }

    struct Run: Equatable {
        var outputs: [WebSocketMessageAssembler.Output] = []
        var error: RealtimeError?
    }

    static func size(_ choice: UInt8, default value: Int) -> Int {
        switch choice % 4 {
        case 0: return value
        case 1: return Int(choice >> 2)  // 0…63: limits crossed all the time
        case 2: return 125 + Int(choice >> 2)
        default: return 4096
        }
    }

    static func receive(_ chunks: [ArraySlice<UInt8>], _ config: Config) -> Run {
        var run = Run()
        var decoder = WebSocketFrameDecoder(
            role: config.role, maxFrameSize: config.maxFrameSize, allowedReservedBits: config.compressed ? 0x40 : 0)
        var assembler = WebSocketMessageAssembler(maxMessageSize: config.maxMessageSize)
        let inflater = config.compressed ? Self.inflater(config) : nil
        // Which stage failed, to check that it stays failed (the inflater has no such state:
        // the transport drops the connection).
        var stage = ""
        do throws(RealtimeError) {
            for chunk in chunks {
                try withPayloadBytes(Array(chunk)) { (raw: UnsafeRawBufferPointer) throws(RealtimeError) in
                    var input = raw
                    while true {
                        stage = "decoder"
                        guard var frame = try decoder.next(from: &input) else { break }
                        stage = "inflater"
                        if let inflater { frame = try inflater.inflate(frame) }
                        stage = "assembler"
                        if let output = try assembler.receive(frame) { run.outputs.append(output) }
                    }
                    if let (header, _) = decoder.partialFrame, inflater?.isCompressed(header) != true {
                        stage = "assembler"
                        _ = try decoder.withPartialPayload { (header, payload) throws(RealtimeError) in
                            try assembler.inspectPartialFrame(header, payload: payload)
                        }
                    }
                }
            }
        } catch {
            run.error = error
            var again: RealtimeError?
            var empty = UnsafeRawBufferPointer(start: nil, count: 0)
            switch stage {
            case "decoder":
                do throws(RealtimeError) { _ = try decoder.next(from: &empty) } catch { again = error }
            case "assembler":
                do throws(RealtimeError) { _ = try assembler.receive(WebSocketFrame(opcode: .ping)) } catch { again = error }
            default:
                again = error
            }
            require(again == error, "the \(stage) recovered from \(error): \(String(describing: again))")
        }
        return run
    }

    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        let seed = input.uint64()
        let flags = input.byte()
        let config = Config(
            role: flags & 1 == 0 ? .client : .server, compressed: flags & 2 != 0, noContextTakeover: flags & 4 != 0,
            windowBits: 9 + Int(input.byte() % 7),
            maxFrameSize: Self.size(input.byte(), default: WebSocketFrameDecoder.defaultMaxFrameSize),
            maxMessageSize: Self.size(input.byte(), default: WebSocketMessageAssembler.defaultMaxMessageSize))
        if flags & 8 != 0 {
            return checkDeflateRoundTrip(&input, config)
        }
        if flags & 16 != 0 {
            return checkClosePayload(&input)
        }
        let wire = input.rest()
        let whole = receive([wire[...]], config)
        let chunked = receive(FuzzChunks.split(wire, seed: seed), config)
        require(chunked == whole, "chunking changed the result: \(short(chunked)) vs whole \(short(whole))")
        // The pipeline the transport runs, against the stage-by-stage model above.
        let viaReceiver = config.compressed
            ? receiveWith(WebSocketReceiver(
                role: config.role, maxFrameSize: config.maxFrameSize, maxMessageSize: config.maxMessageSize,
                allowedReservedBits: 0x40, inflater: inflater(config)), wire, seed: seed &+ 1)
            : receiveWith(WebSocketReceiver(
                role: config.role, maxFrameSize: config.maxFrameSize, maxMessageSize: config.maxMessageSize), wire, seed: seed &+ 1)
        require(viaReceiver == whole, "WebSocketReceiver differs: \(short(viaReceiver)) vs \(short(whole))")
        if let error = whole.error {
            require(error.closeCode != nil, "error without a close code: \(error)")
        }
        checkOutputs(whole.outputs, config)
        checkFrameRoundTrip(wire, config)
    }

    static func inflater(_ config: Config) -> WebSocketInflater {
        try! WebSocketInflater(
            windowBits: config.windowBits, noContextTakeover: config.noContextTakeover, maxMessageSize: config.maxMessageSize)
    }

    static func receiveWith<I: WebSocketFrameInflater>(_ receiver: WebSocketReceiver<I>, _ wire: [UInt8], seed: UInt64) -> Run {
        var receiver = receiver
        var run = Run()
        for chunk in FuzzChunks.split(wire, seed: seed) where run.error == nil {
            withPayloadBytes(Array(chunk)) { raw in
                var input = raw
                do throws(RealtimeError) {
                    while let output = try receiver.next(from: &input) { run.outputs.append(output) }
                } catch {
                    run.error = error
                }
            }
        }
        return run
    }

    static func checkOutputs(_ outputs: [WebSocketMessageAssembler.Output], _ config: Config) {
        for output in outputs {
            switch output {
            case .text(let bytes):
                require(bytes.count <= config.maxMessageSize, "text of \(bytes.count) bytes over \(config.maxMessageSize)")
                require(String(validating: bytes, as: UTF8.self) != nil, "text message is not UTF-8: \(short(bytes))")
            case .string(let text):
                // A whole text frame read from the buffer (a client's receiver only).
                require(config.role == .client, "a server's receiver read a text frame as a client")
                require(text.utf8.count <= min(config.maxMessageSize, config.maxFrameSize), "text of \(text.utf8.count) bytes over the limits")
            case .binary(let bytes):
                require(bytes.count <= config.maxMessageSize, "binary of \(bytes.count) bytes over \(config.maxMessageSize)")
            case .ping(let bytes), .pong(let bytes):
                require(bytes.count <= 125, "control payload of \(bytes.count) bytes")
            case .close(let code, let reason):
                if let code { require(WebSocketCloseCode.isValidOnWire(code), "close code \(code) accepted") }
                require(reason.utf8.count <= 123, "close reason of \(reason.utf8.count) bytes")
                require(code != nil || reason.isEmpty, "a reason without a code")
            }
        }
    }

    /// Frames decoded from `wire`, encoded again, decode to the same frames.
    static func checkFrameRoundTrip(_ wire: [UInt8], _ config: Config) {
        var decoder = WebSocketFrameDecoder(
            role: config.role, maxFrameSize: config.maxFrameSize, allowedReservedBits: config.compressed ? 0x40 : 0)
        var frames: [WebSocketFrame] = []
        var failed = false
        do throws(RealtimeError) { frames = try decoder.decode(wire) } catch { failed = true }
        if failed { return }
        var encoded: [UInt8] = []
        for frame in frames { WebSocketFrameEncoder.encode(frame, into: &encoded) }
        var again = WebSocketFrameDecoder(
            role: config.role, maxFrameSize: config.maxFrameSize, allowedReservedBits: config.compressed ? 0x40 : 0)
        let redecoded: [WebSocketFrame]
        do throws(RealtimeError) { redecoded = try again.decode(encoded) } catch {
            require(false, "re-encoded frames fail to decode: \(error)")
            return
        }
        require(redecoded == frames, "frames changed by encode/decode: \(short(redecoded)) vs \(short(frames))")
        require(encoded.count <= wire.count, "minimal encoding is longer than the input")
    }

    /// Messages deflated and fragmented, then inflated: the same messages come out.
    static func checkDeflateRoundTrip(_ input: inout FuzzInput, _ config: Config) {
        let level = Int(input.byte() % 10)
        let deflater = try! WebSocketDeflater(windowBits: config.windowBits, noContextTakeover: config.noContextTakeover, level: level)
        let inflater = try! WebSocketInflater(windowBits: config.windowBits, noContextTakeover: config.noContextTakeover, maxMessageSize: .max)
        var assembler = WebSocketMessageAssembler(maxMessageSize: .max)
        while !input.isAtEnd {
            let fragments = 1 + Int(input.byte() % 4)
            let message = input.field()
            let compressed: [UInt8]
            do throws(RealtimeError) { compressed = try deflater.compress(message) } catch {
                return require(false, "deflating \(message.count) bytes failed: \(error)")
            }
            var frames: [WebSocketFrame] = []
            var start = 0
            for k in 0..<fragments {
                let end = k == fragments - 1 ? compressed.count : min(compressed.count, start + Int(input.byte()))
                frames.append(WebSocketFrame(
                    fin: k == fragments - 1, rsv1: k == 0, opcode: k == 0 ? .binary : .continuation,
                    payload: Array(compressed[start..<end])))
                start = end
            }
            var outputs: [WebSocketMessageAssembler.Output] = []
            for frame in frames {
                do throws(RealtimeError) {
                    if let output = try assembler.receive(try inflater.inflate(frame)) { outputs.append(output) }
                } catch {
                    require(false, "our own deflate output fails to inflate: \(error)")
                }
            }
            require(outputs == [.binary(message)], "round trip gave \(short(outputs)) for \(short(message))")
        }
    }

    /// A close payload from the encoder parses to its code and the reason cut at ≤ 123 bytes.
    static func checkClosePayload(_ input: inout FuzzInput) {
        let code = UInt16(input.byte()) << 8 | UInt16(input.byte())
        let reason = String(decoding: input.rest(), as: UTF8.self)
        let payload = WebSocketFrameEncoder.closePayload(code: code, reason: reason)
        require(payload.count <= 125, "close payload of \(payload.count) bytes")
        let parsed: WebSocketMessageAssembler.Output
        do throws(RealtimeError) { parsed = try WebSocketMessageAssembler.parseClose(payload) } catch {
            require(!WebSocketCloseCode.isValidOnWire(code), "valid code \(code) rejected: \(error)")
            return
        }
        guard case .close(let got, let text) = parsed else { return require(false, "not a close: \(parsed)") }
        require(got == code, "code \(String(describing: got)) for \(code)")
        require(reason.utf8.starts(with: text.utf8), "reason \(short(text)) is not a prefix of \(short(reason))")
        require(reason.utf8.count <= 123 ? text == reason : text.utf8.count > 119, "reason cut too short: \(text.utf8.count) bytes")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    WebSocketFramesFuzz.check(data, size)
    return 0
}

#if os(Linux)
import CZlib
#endif
@_spi(Transport) import RealtimeCore

/// The receiving half of permessage-deflate (RFC 7692 §7.2.2): turns the frames of compressed
/// messages (RSV1 on the first frame) back into plain frames for the message assembler,
/// with the decompressed size bounded.
///
/// - Frames are inflated as they arrive (fragments of one message share one stream); after
///   the final fragment the four bytes `00 00 ff ff` that the sender removed are appended
///   (§7.2.2).
/// - Size: a message may not inflate beyond `maxMessageSize` (the transport's
///   ``WebSocketOptions/maxMessageSize``). zlib is stopped as soon as the output
///   would cross it, so a decompression bomb costs at most that much memory and fails with
///   `messageTooLarge` (close code 1009, RFC 6455 §7.4.1).
/// - Invalid DEFLATE data fails with `protocolViolation` and close code 1007 (the payload is
///   not consistent with the message, RFC 6455 §7.4.1).
/// - Context: kept between messages unless the server agreed to `server_no_context_takeover`
///   (§7.1.1.1), in which case it is reset after each message; a stream that ends with a
///   final block (BFINAL, §7.2.3.4) is reset too.
/// - Window: the agreed `server_max_window_bits`, but at least 9: zlib-based servers that
///   agree to 8 deflate with 9 (zlib has no 256-byte raw window), and a stricter window would
///   reject their valid output.
///
/// Uncompressed messages and control frames pass through unchanged. The inflater stage of the
/// connection's ``WebSocketReceiver``. Loop-confined: not thread-safe.
final class WebSocketInflater: WebSocketFrameInflater {
    let windowBits: Int
    let noContextTakeover: Bool
    /// Bound on one decompressed message, in bytes.
    let maxMessageSize: Int
    private let stream: UnsafeMutablePointer<z_stream>
    /// True between the first and the last frame of a compressed message.
    private var inCompressedMessage = false
    /// Decompressed bytes of the current message so far.
    private var produced = 0
    /// The stream ended (BFINAL) inside this message: later input of the message is ignored.
    private var streamEnded = false

    /// Largest output room added to the message per `inflate` call. zlib writes straight into
    /// the message's array, so the inflater keeps no output buffer of its own between
    /// messages; the room starts at four times the compressed input and doubles while zlib
    /// fills it, so a small message's array stays small.
    private static let maxOutputStep = 64 << 10

    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// Zeros that extend the message's array before zlib writes into it: appending a slice
    /// of an array is one copy, where `repeatElement` goes element by element (2 MB/s in a
    /// debug build).
    private static let zeros = [UInt8](repeating: 0, count: maxOutputStep + 1)

    /// - Throws: `internal` when zlib cannot allocate its state.
    init(windowBits: Int, noContextTakeover: Bool, maxMessageSize: Int) throws(RealtimeError) {
        self.windowBits = min(max(windowBits, 9), 15)
        self.noContextTakeover = noContextTakeover
        self.maxMessageSize = maxMessageSize
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = rt_inflateInit2(stream, -Int32(self.windowBits))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw RealtimeError(.internal, detail: "zlib inflateInit2 failed (\(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether a frame still arriving belongs to a compressed message (its bytes cannot be
    /// checked before they are inflated).
    func isCompressed(_ header: WebSocketFrameHeader) -> Bool {
        switch header.opcode {
        case .text, .binary: return header.rsv1
        case .continuation: return inCompressedMessage
        case .close, .ping, .pong: return false
        }
    }

    /// Returns `frame` with its payload inflated when it belongs to a compressed message, or
    /// unchanged otherwise. Frame-sequence errors (a continuation without a message…) are left
    /// to the assembler, which sees the frames in the same order.
    func inflate(_ frame: consuming WebSocketFrame) throws(RealtimeError) -> WebSocketFrame {
        switch frame.opcode {
        case .close, .ping, .pong:
            return frame
        case .text, .binary:
            inCompressedMessage = frame.rsv1
            produced = 0
            streamEnded = false
        case .continuation:
            break
        }
        guard inCompressedMessage else { return frame }
        var out: [UInt8] = []
        try inflate(frame.payload, into: &out)
        if frame.fin {
            try inflate(Self.tail, into: &out)
            inCompressedMessage = false
            if noContextTakeover && !streamEnded { inflateReset(stream) }
        }
        frame.payload = out
        frame.rsv1 = false
        return frame
    }

    private func inflate(_ input: [UInt8], into out: inout [UInt8]) throws(RealtimeError) {
        if input.isEmpty || streamEnded { return }
        let result: Result<Void, RealtimeError> = input.withUnsafeBytes { raw in
            Result { () throws(RealtimeError) in try inflate(raw, into: &out) }
        }
        try result.get()
    }

    private func inflate(_ input: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(RealtimeError) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        var step = min(max(256, input.count * 4), Self.maxOutputStep)
        repeat {
            // One byte more than the budget allows, so crossing it is seen without inflating
            // further.
            // (Never `maxMessageSize + 1` itself: the limit may be `Int.max`.)
            let budget = maxMessageSize - produced
            let room = budget < step ? budget + 1 : step
            step = min(step * 2, Self.maxOutputStep)
            let start = out.count
            out.append(contentsOf: Self.zeros[..<room])
            let status: Int32 = out.withUnsafeMutableBytes { buffer in
                stream.pointee.next_out = (buffer.baseAddress! + start).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(room)
                return CZlib.inflate(stream, Z_SYNC_FLUSH)
            }
            let got = room - Int(stream.pointee.avail_out)
            out.removeLast(room - got)
            produced += got
            if produced > maxMessageSize {
                throw RealtimeError(
                    .messageTooLarge, detail: "decompressed message exceeds maxMessageSize \(maxMessageSize)", closeCode: 1009)
            }
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                // A final block (§7.2.3.4): the rest of this message's input is the tail we
                // appended (or padding); the next message starts a new stream.
                inflateReset(stream)
                streamEnded = true
                return
            case Z_BUF_ERROR where got == 0:
                // No progress: the input so far is a prefix of a block; more will come.
                return
            default:
                throw RealtimeError(
                    .protocolViolation, detail: "invalid permessage-deflate data (RFC 7692 §7.2.2)", closeCode: 1007)
            }
        // A full output buffer may leave output pending inside zlib even with no input left.
        } while stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0
    }
}

#if os(Linux)
import CZlib
#endif
@_spi(Transport) import RealtimeCore

/// The sending half of permessage-deflate (RFC 7692 §7.2.1): compresses one whole message
/// at a time with raw DEFLATE, for a frame with RSV1 set.
///
/// Each message is flushed with `Z_SYNC_FLUSH` so it ends on a byte boundary with an empty
/// stored block (`00 00 ff ff`), whose last four bytes are then removed (§7.2.1); the receiver
/// appends them again. With context takeover (the default) the LZ77 window carries over to
/// the next message; with `client_no_context_takeover` the stream is reset after every
/// message (§7.1.1.2).
///
/// Memory: zlib's state (`2^(windowBits + 2) + 2^(memoryLevel + 9)` bytes plus about 6 KiB)
/// exists only from the first message sent; under `client_no_context_takeover` it is freed
/// after every message, so a connection that does not send holds none.
///
/// Loop-confined like the connection that owns it: not thread-safe.
final class WebSocketDeflater {
    /// The window our compressor uses (base-2 log, 9–15); see
    /// ``init(windowBits:noContextTakeover:level:memoryLevel:)``.
    let windowBits: Int
    let noContextTakeover: Bool
    let level: Int
    let memoryLevel: Int
    /// zlib's state; nil until a message is sent, and between messages without context
    /// takeover.
    private var stream: UnsafeMutablePointer<z_stream>?
    /// Compressed bytes are produced into this buffer, kept between messages while small.
    private var output: [UInt8] = []

    /// - Parameters:
    ///   - windowBits: at most the agreed `client_max_window_bits`, 9–15. zlib refuses raw
    ///     DEFLATE with 8 (a 256-byte window); the caller must not compress at all in that case.
    ///   - level: zlib level 0–9.
    ///   - memoryLevel: zlib `memLevel` 1–9.
    init(windowBits: Int, noContextTakeover: Bool, level: Int, memoryLevel: Int = 8) throws(RealtimeError) {
        precondition((9...15).contains(windowBits), "zlib raw deflate supports windows of 9-15 bits")
        self.windowBits = windowBits
        self.noContextTakeover = noContextTakeover
        self.level = level
        self.memoryLevel = memoryLevel
    }

    deinit {
        release()
    }

    /// zlib's state, made on first use.
    private func makeStream() throws(RealtimeError) -> UnsafeMutablePointer<z_stream> {
        if let stream { return stream }
        let made = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        made.initialize(to: z_stream())
        // Negative window bits: raw DEFLATE, no zlib header or checksum (RFC 7692 §7.2.1).
        let status = rt_deflateInit2(
            made, Int32(level), Z_DEFLATED, -Int32(windowBits), Int32(memoryLevel), Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            made.deinitialize(count: 1)
            made.deallocate()
            throw RealtimeError(.internal, detail: "zlib deflateInit2 failed (\(status))")
        }
        stream = made
        return made
    }

    /// Whether zlib's state is allocated now (for tests of the memory rule above).
    var holdsState: Bool { stream != nil }

    private func release() {
        guard let stream else { return }
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        self.stream = nil
    }

    /// The compressed payload of one message (without the trailing `00 00 ff ff`).
    func compress(_ payload: UnsafeRawBufferPointer) throws(RealtimeError) -> [UInt8] {
        // An empty message is one empty stored block's first byte (RFC 7692 §7.2.3.6): after a
        // sync flush zlib has nothing to flush again and answers a second one with
        // Z_BUF_ERROR and no bytes, so the window and the stream state stay as they are.
        if payload.isEmpty { return [0x00] }
        let stream = try makeStream()
        // Room for the whole result in one pass: zlib's bound for the data plus the flush
        // marker and a block header; grown below if zlib still wants more.
        let bound = Int(deflateBound(stream, uLong(payload.count))) + 16
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        var produced = 0
        let base = payload.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.next_in = base
        stream.pointee.avail_in = uInt(payload.count)
        while true {
            let status: Int32 = output.withUnsafeMutableBytes { out in
                stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self) + produced
                stream.pointee.avail_out = uInt(out.count - produced)
                let status = deflate(stream, Z_SYNC_FLUSH)
                produced = out.count - Int(stream.pointee.avail_out)
                return status
            }
            // Z_BUF_ERROR only means "no progress possible": with everything consumed and
            // room left, the flush is complete.
            guard status == Z_OK || status == Z_BUF_ERROR else {
                stream.pointee.next_in = nil
                throw RealtimeError(.internal, detail: "zlib deflate failed (\(status))")
            }
            if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { break }
            output.append(contentsOf: repeatElement(0, count: max(output.count, 1024)))
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        // No context to keep: the state goes until the next message.
        if noContextTakeover { release() }
        defer { if output.count > 4 << 10 { output = [] } }
        // A sync flush always ends with an empty stored block: 00 00 ff ff (§7.2.1 step 3).
        guard produced >= 4, output[produced - 4] == 0, output[produced - 3] == 0,
              output[produced - 2] == 0xFF, output[produced - 1] == 0xFF else {
            throw RealtimeError(.internal, detail: "zlib sync flush did not end with 00 00 ff ff")
        }
        return Array(output[..<(produced - 4)])
    }

    func compress(_ payload: [UInt8]) throws(RealtimeError) -> [UInt8] {
        let result = payload.withUnsafeBytes { raw in
            Result { () throws(RealtimeError) -> [UInt8] in try compress(raw) }
        }
        return try result.get()
    }
}

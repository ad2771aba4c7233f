/// The bottom layer of the SSE parser: cuts a byte stream into lines (WHATWG HTML §9.2.5).
///
/// - Strips one leading UTF-8 BOM (EF BB BF) at the start of the stream, and only one;
///   a BOM split across chunks is recognised, a partial match is given back as line bytes.
/// - Ends lines at CRLF, LF or CR. A line ending in CR is reported at once; if the next byte
///   (possibly in the next chunk) is LF, it is skipped.
/// - Lines that lie inside the current chunk are reported as offsets into it (no copy);
///   only a line that crosses a chunk boundary is assembled in ``partial``.
/// - Finds CR or LF in a single SIMD pass (``ByteScan/lineEnd(in:from:to:firstHigh:)``), and
///   never rescans: a line that crosses chunks is scanned piece by piece as it arrives, so
///   the cost is linear whatever the chunk sizes and line-ending style. The same pass finds
///   the line's first byte ≥ 0x80 (``lineFirstHigh``), which lets the parser skip UTF-8
///   validation of pure-ASCII lines and start it there on the others.
///
/// Usage per chunk: `var cursor = begin(chunk)`, then `while let line = next(chunk,
/// &cursor)`; after a `.buffered` line, read ``partial`` then call ``consumedBuffered()``;
/// on `.tooLong`, throw ``tooLongError`` and abandon the stream.
struct SSELineSplitter: Sendable {
    enum Line: Equatable {
        /// The line is `chunk[start..<end]`.
        case chunk(start: Int, end: Int)
        /// The line is ``SSELineSplitter/partial`` (it crossed a chunk boundary).
        case buffered
        /// The line exceeds `maxLineLength` (the caller throws ``tooLongError``; a non-throwing
        /// scanner lets the optimiser inline it into the parser's loop).
        case tooLong
    }

    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    private static let bom: (UInt8, UInt8, UInt8) = (0xEF, 0xBB, 0xBF)

    /// Bytes of a line that began in an earlier chunk (bounded by `maxLineLength`).
    private(set) var partial: [UInt8] = []
    var maxLineLength: Int
    /// The previous chunk ended in CR: an LF at the start of the next one belongs to it.
    private var skipLF = false
    /// BOM bytes matched so far (0...2), or 3 once the stream start has been decided.
    private var bomState: UInt8 = 0
    /// Offset in ``partial`` of its first byte ≥ 0x80; `Int.max` when it is pure ASCII.
    private var partialFirstHigh = Int.max
    /// Offset in the line last returned by ``next(_:_:)`` of its first byte ≥ 0x80 (all
    /// bytes before it are ASCII); `Int.max` when the line is pure ASCII.
    private(set) var lineFirstHigh = Int.max

    init(maxLineLength: Int) {
        self.maxLineLength = maxLineLength
    }

    /// Starts a chunk: handles a leading BOM and an LF owed to a CR at the end of the last
    /// chunk. Returns the offset where line scanning starts.
    @inline(__always)
    mutating func begin(_ chunk: UnsafeRawBufferPointer) -> Int {
        var i = 0
        let n = chunk.count
        if _slowPath(bomState < 3) {
            while bomState < 3 && i < n {
                let expected = bomState == 0 ? Self.bom.0 : (bomState == 1 ? Self.bom.1 : Self.bom.2)
                if chunk[i] == expected {
                    bomState &+= 1
                    i &+= 1
                } else {
                    // Not a BOM: the bytes matched so far are ordinary line content.
                    if bomState >= 1 { partial.append(Self.bom.0); partialFirstHigh = 0 }
                    if bomState >= 2 { partial.append(Self.bom.1) }
                    bomState = 3
                }
            }
        }
        if skipLF && i < n {
            if chunk[i] == Self.lf { i &+= 1 }
            skipLF = false
        }
        return i
    }

    /// The next complete line at or after `cursor`, advancing it past the line terminator;
    /// nil when the chunk is used up (an unterminated tail is kept in ``partial``).
    /// `.tooLong` as soon as a line is known to exceed the limit.
    @inline(__always)
    mutating func next(_ chunk: UnsafeRawBufferPointer, _ cursor: inout Int) -> Line? {
        let n = chunk.count
        let p = cursor
        guard p < n, let base = chunk.baseAddress else { return nil }
        var high = Int.max
        let eol: Int
        let first = base.load(fromByteOffset: p, as: UInt8.self)
        if first == Self.lf || first == Self.cr {
            eol = p  // a blank line (or the end of a partial one): no scan needed
        } else {
            eol = ByteScan.lineEnd(in: base, from: p, to: n, firstHigh: &high)
        }
        if eol == n {
            if tooLong(partial.count &+ (n &- p)) { return .tooLong }
            if partialFirstHigh == .max && high < n { partialFirstHigh = partial.count &+ (high &- p) }
            partial.appendBytes(base + p, count: n &- p)
            cursor = n
            return nil
        }
        if base.load(fromByteOffset: eol, as: UInt8.self) == Self.cr {
            if eol &+ 1 < n {
                cursor = base.load(fromByteOffset: eol &+ 1, as: UInt8.self) == Self.lf ? eol &+ 2 : eol &+ 1
            } else {
                skipLF = true
                cursor = n
            }
        } else {
            cursor = eol &+ 1
        }
        if partial.isEmpty {
            if tooLong(eol &- p) { return .tooLong }
            lineFirstHigh = high < eol ? high &- p : .max
            return .chunk(start: p, end: eol)
        }
        if tooLong(partial.count &+ (eol &- p)) { return .tooLong }
        if partialFirstHigh == .max && high < eol { partialFirstHigh = partial.count &+ (high &- p) }
        lineFirstHigh = partialFirstHigh
        partial.appendBytes(base + p, count: eol &- p)
        return .buffered
    }

    /// Gives `body` the buffered line to read or take over (after a `.buffered` line; the
    /// buffer may be swapped for another, which ``consumedBuffered()`` then empties).
    @inline(__always)
    mutating func withPartial<R>(_ body: (inout [UInt8]) throws -> R) rethrows -> R {
        try body(&partial)
    }

    /// Call after reading a `.buffered` line.
    @inline(__always)
    mutating func consumedBuffered() {
        // Keep up to 1 MiB for the next straddling line; give back a bigger one.
        if partial.capacity > 1 << 20 {
            partial = []
        } else {
            partial.removeAll(keepingCapacity: true)
        }
        partialFirstHigh = .max
    }

    /// End of stream: an unterminated line is discarded, and the next stream may start
    /// with a BOM again.
    mutating func reset() {
        partial = []
        partialFirstHigh = .max
        skipLF = false
        bomState = 0
    }

    @inline(__always)
    private func tooLong(_ length: Int) -> Bool {
        _slowPath(length > maxLineLength)
    }

    /// The error for a `.tooLong` line.
    var tooLongError: RealtimeError {
        RealtimeError(.lineTooLong, detail: "SSE line longer than \(maxLineLength) bytes")
    }
}

/// UTF-8 decoding for SSE fields: validate fast, build the `String` without a second check.
///
/// WHATWG HTML §9.2.5 decodes the stream with "UTF-8 decode": invalid sequences become
/// U+FFFD (one per maximal subpart, the Unicode recommended practice that the standard
/// library's repairing decoder also follows). Because CR, LF and `:` are ASCII and never
/// part of a multi-byte sequence, decoding each field separately gives exactly the same text
/// as decoding the whole stream, and a code point split across chunks is never damaged (the
/// parser decodes only complete lines).
///
/// The standard library validates with a fast path only when a whole buffer is ASCII; one
/// `é` in an event sends the entire event through a byte-at-a-time loop. This validator
/// skips ASCII runs 32 and 8 bytes at a time between multi-byte sequences, and valid input
/// is then copied into a `String` through `UTF8Span(unchecked:)` with no second validation.
enum SSEUTF8 {
    /// Whether `base[0..<count]` is valid UTF-8 and whether it is pure ASCII.
    @inline(__always)
    static func validate(_ base: UnsafeRawPointer, count n: Int) -> (valid: Bool, ascii: Bool) {
        let high: UInt64 = 0x8080_8080_8080_8080
        var i = 0
        var ascii = true
        while true {
            // Skip ASCII: 32 bytes per step, then 8, then jump straight to the first high byte.
            while i &+ 32 <= n {
                let w = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    | base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
                    | base.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self)
                    | base.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self)
                if w & high != 0 { break }
                i &+= 32
            }
            while i &+ 8 <= n {
                let h = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & high
                if h != 0 {
                    i &+= h.trailingZeroBitCount >> 3
                    break
                }
                i &+= 8
            }
            while i < n, base.load(fromByteOffset: i, as: UInt8.self) < 0x80 { i &+= 1 }
            if i >= n { return (true, ascii) }
            ascii = false
            // A run of multi-byte sequences (Unicode Table 3-7, well-formed UTF-8), decoded
            // back to back while the next byte is non-ASCII.
            repeat {
                let b0 = base.load(fromByteOffset: i, as: UInt8.self)
                @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
                    guard i &+ k < n else { return false }
                    let b = base.load(fromByteOffset: i &+ k, as: UInt8.self)
                    return b >= lo && b <= hi
                }
                if b0 < 0xC2 {
                    return (false, false)
                } else if b0 < 0xE0 {
                    guard cont(1) else { return (false, false) }
                    i &+= 2
                } else if b0 < 0xF0 {
                    let ok1 = b0 == 0xE0 ? cont(1, 0xA0) : (b0 == 0xED ? cont(1, 0x80, 0x9F) : cont(1))
                    guard ok1, cont(2) else { return (false, false) }
                    i &+= 3
                } else if b0 < 0xF5 {
                    let ok1 = b0 == 0xF0 ? cont(1, 0x90) : (b0 == 0xF4 ? cont(1, 0x80, 0x8F) : cont(1))
                    guard ok1, cont(2), cont(3) else { return (false, false) }
                    i &+= 4
                } else {
                    return (false, false)
                }
            } while i < n && base.load(fromByteOffset: i, as: UInt8.self) >= 0x80
            if i >= n { return (true, false) }
        }
    }

    /// Decodes `bytes` as UTF-8, replacing invalid sequences with U+FFFD.
    @inline(__always)
    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return "" }
        let (valid, ascii) = validate(base, count: bytes.count)
        return string(validated: bytes, valid: valid, ascii: ascii)
    }

    /// Builds the string for bytes whose validity (and ASCII-ness) the caller has already
    /// established; invalid bytes are decoded with U+FFFD replacement.
    @inline(__always)
    static func string(validated bytes: UnsafeRawBufferPointer, valid: Bool, ascii: Bool) -> String {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return "" }
        if valid {
            if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
                let typed = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
                // Safe: `validate` has just proven the bytes well-formed (and ASCII if so).
                return String(copying: UTF8Span(unchecked: Span(_unsafeElements: typed), isKnownASCII: ascii))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

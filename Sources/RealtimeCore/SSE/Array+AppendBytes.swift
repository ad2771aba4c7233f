extension Array where Element == UInt8 {
    /// Appends raw bytes with one `memcpy` (the generic `append(contentsOf:)` on a raw buffer
    /// may go element by element).
    @inline(__always)
    mutating func appendBytes(_ base: UnsafeRawPointer, count: Int) {
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }
}

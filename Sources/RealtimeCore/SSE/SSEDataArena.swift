/// Event data bytes copied out of the receive buffer on the I/O thread, so the `String` for
/// each event can be built later on the consumer's thread (see ``Message``'s deferred text).
///
/// Why: building the `String` on the I/O thread means one `malloc` there per event and the
/// matching `free` on the consumer's thread; glibc then serialises both threads on the I/O
/// thread's arena lock (measured: a third of the I/O thread's time at 128-byte events). The
/// arena costs one allocation per batch instead, and the strings are allocated and freed by
/// the thread that uses them.
///
/// **Thread rule:** one producer appends while the arena is private to it; once the events
/// that point into it have been handed over (through a ``BoundedChannel``, whose lock orders
/// the writes before the reads) the producer starts a new arena and never touches this one
/// again, so readers only ever see immutable bytes.
package final class SSEDataArena: @unchecked Sendable {
    /// Unchecked exclusivity: the thread rule above is what keeps accesses apart, and the
    /// dynamic check would cost more than the copy it guards for small events.
    @exclusivity(unchecked) package private(set) var bytes: [UInt8] = []

    package init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `data` (producer only, before hand-over); returns its offset.
    package func append(_ data: UnsafeRawBufferPointer) -> Int {
        let offset = bytes.count
        bytes.append(contentsOf: data)
        return offset
    }
}

/// An SSE event's `data` as bytes in an ``SSEDataArena``, with what validation found, so the
/// `String` is built without a second UTF-8 check.
package struct SSEDeferredText: Sendable {
    package let arena: SSEDataArena
    package let offset: Int
    package let count: Int
    package let isValidUTF8: Bool
    package let isASCII: Bool

    package init(arena: SSEDataArena, offset: Int, count: Int, isValidUTF8: Bool, isASCII: Bool) {
        self.arena = arena
        self.offset = offset
        self.count = count
        self.isValidUTF8 = isValidUTF8
        self.isASCII = isASCII
    }

    /// The text (U+FFFD for invalid sequences, as WHATWG's UTF-8 decode).
    package func string() -> String {
        arena.bytes.withUnsafeBytes { all in
            SSEUTF8.string(
                validated: UnsafeRawBufferPointer(rebasing: all[offset..<offset + count]), valid: isValidUTF8, ascii: isASCII)
        }
    }

    package func byteArray() -> [UInt8] {
        Array(arena.bytes[offset..<offset + count])
    }
}

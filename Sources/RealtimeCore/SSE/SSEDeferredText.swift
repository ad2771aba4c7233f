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
        SSEUTF8.string(validated: bytes, valid: isValidUTF8, ascii: isASCII)
    }

    package func byteArray() -> [UInt8] {
        Array(bytes)
    }

    /// Calls `body` with the data bytes in place, in the arena.
    package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withExtendedLifetime(arena) { try body(bytes.bindMemory(to: UInt8.self)) }
    }

    /// The data bytes in the arena (valid while this value, which keeps the arena, lives).
    private var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: arena.block.base + offset, count: count)
    }
}

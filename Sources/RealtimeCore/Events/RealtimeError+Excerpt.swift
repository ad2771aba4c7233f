extension RealtimeError {
    /// `text` cut to at most ``maxBodyExcerpt`` UTF-8 bytes at a Unicode scalar boundary.
    ///
    /// The cut counts bytes, not characters: one grapheme cluster can be megabytes long (a
    /// base letter with millions of combining marks), and `String.prefix` would keep it whole.
    package static func excerpt(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.count > maxBodyExcerpt else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: maxBodyExcerpt)
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { utf8.formIndex(before: &end) }
        return String(text.unicodeScalars[..<end])
    }

    /// The first ``maxBodyExcerpt`` bytes of a response body as text: decoded leniently (an
    /// invalid sequence becomes U+FFFD), without a scalar cut at the end, and cut again to
    /// ``maxBodyExcerpt`` bytes (a replacement character takes three). nil when empty.
    package static func excerpt<Bytes: Collection<UInt8>>(bytes: Bytes) -> String? {
        var head = Array(bytes.prefix(maxBodyExcerpt))
        head.removeLast(incompleteTailCount(head))
        guard !head.isEmpty else { return nil }
        return excerpt(String(decoding: head, as: UTF8.self))
    }

    /// How many bytes at the end of `bytes` are the start of a scalar whose other bytes are
    /// missing (0 when the last scalar is whole or the tail is not UTF-8 at all).
    private static func incompleteTailCount(_ bytes: [UInt8]) -> Int {
        var lead = bytes.endIndex
        while lead > bytes.startIndex, bytes.endIndex - lead < 4 {
            lead -= 1
            guard UTF8.isContinuation(bytes[lead]) else { break }
        }
        guard lead < bytes.endIndex, !UTF8.isContinuation(bytes[lead]) else { return 0 }
        let length: Int
        switch bytes[lead] {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        let present = bytes.endIndex - lead
        return present < length ? present : 0
    }
}

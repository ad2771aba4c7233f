/// Removes URL credentials (`user:password@`) from any text before it is printed: usage
/// errors, log lines, error details. It works on plain text, not on parsed URLs, because the
/// text that most needs it is the text that does not parse (`http://user:pw@[::1`).
///
/// The rule, applied to every whitespace-separated token of the text:
/// - After each `://`, the authority runs to the first `/`, `?`, `#` or `\` (RFC 3986 §3.2;
///   WHATWG URL treats `\` as `/`). If it holds an `@`, everything before its last `@` (the
///   userinfo, RFC 3986 §3.2.1) becomes `***`: `http://***@host/`. If another `@` follows
///   later in the token, the password may hold `@` and then `/`, `?` or `#` (`p@ss#word`),
///   so everything up to the token's last `@` is hidden instead.
/// - If that authority holds no `@` but does not read as `host[:port]` (a `:` followed by
///   something other than digits), and an `@` follows later in the token, the password may
///   itself contain `/`, `?` or `#`: everything from the authority's start to the token's
///   last `@` becomes `***`. When in doubt, more is hidden, never less.
/// - A token that does not start with `scheme://` and has a `:` before an `@` in its first
///   segment (`user:pw@host:8080`) has everything before that segment's last `@` replaced,
///   with the same widening as above; a `://` later in such a token (inside the password,
///   or a URL after `=`) is then handled as above.
///
/// A user name alone is hidden too (`https://TOKEN@host` carries a token in that place).
/// The text is otherwise unchanged; `@` in a path (`http://host/@me`) and percent-encoded
/// characters are left as they are. Linear in the text's length.
package enum URLRedaction {
    /// What replaces the userinfo.
    package static let mask = "***"

    /// `text` with every URL userinfo replaced by ``mask``.
    package static func redacted(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "@")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        var i = 0
        while i < bytes.count {
            if isDelimiter(bytes[i]) {
                i += 1
                continue
            }
            var end = i
            while end < bytes.count, !isDelimiter(bytes[end]) { end += 1 }
            for range in userinfoRanges(bytes, token: i..<end) {
                out += bytes[copied..<range.lowerBound]
                out += mask.utf8
                copied = range.upperBound
            }
            i = end
        }
        guard copied > 0 else { return text }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    /// The ranges to hide in one token, in order and disjoint.
    private static func userinfoRanges(_ b: [UInt8], token: Range<Int>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var searchFrom = token.lowerBound
        var start = token.lowerBound
        while start < token.upperBound, "'\"(<[{`".utf8.contains(b[start]) { start += 1 }
        if !startsWithScheme(b, from: start, to: token.upperBound),
           let hidden = userinfo(b, authority: start, tokenEnd: token.upperBound, needsColon: true) {
            ranges.append(hidden)
            searchFrom = hidden.upperBound
        }
        while let start = authorityStart(b, from: searchFrom, to: token.upperBound) {
            let hidden = userinfo(b, authority: start, tokenEnd: token.upperBound, needsColon: false)
            if let hidden { ranges.append(hidden) }
            searchFrom = max(start, hidden?.upperBound ?? start)
        }
        return ranges
    }

    /// Whether `b[from..<to]` starts with `scheme://` (RFC 3986 §3.1:
    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`).
    private static func startsWithScheme(_ b: [UInt8], from: Int, to: Int) -> Bool {
        func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
        guard from < to, isAlpha(b[from]) else { return false }
        var i = from + 1
        while i < to, isAlpha(b[i]) || (b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9")) || "+-.".utf8.contains(b[i]) {
            i += 1
        }
        return i + 2 < to && b[i] == UInt8(ascii: ":") && b[i + 1] == UInt8(ascii: "/") && b[i + 2] == UInt8(ascii: "/")
    }

    /// The index after the next `://` in `b[from..<to]`.
    private static func authorityStart(_ b: [UInt8], from: Int, to: Int) -> Int? {
        var i = from
        while i + 2 < to {
            if b[i] == UInt8(ascii: ":"), b[i + 1] == UInt8(ascii: "/"), b[i + 2] == UInt8(ascii: "/") { return i + 3 }
            i += 1
        }
        return nil
    }

    /// The userinfo of the authority starting at `start`, nil when there is none.
    /// `needsColon`: only a `user:password` form counts (text without a scheme).
    private static func userinfo(_ b: [UInt8], authority start: Int, tokenEnd: Int, needsColon: Bool) -> Range<Int>? {
        var end = start
        while end < tokenEnd, !"/?#\\".utf8.contains(b[end]) { end += 1 }
        if let at = b[start..<end].lastIndex(of: UInt8(ascii: "@")) {
            guard !needsColon || b[start..<at].contains(UInt8(ascii: ":")) else { return nil }
            // `user:p@ss#word@host`: the authority ended inside the password.
            if let later = b[end..<tokenEnd].lastIndex(of: UInt8(ascii: "@")) { return start..<later }
            return start..<at
        }
        guard end < tokenEnd, !readsAsHostAndPort(b[start..<end]) else { return nil }
        guard let at = b[end..<tokenEnd].lastIndex(of: UInt8(ascii: "@")) else { return nil }
        return start..<at
    }

    /// `host`, `host:digits`, `[v6]` or `[v6]:digits` (no userinfo could hide in it).
    private static func readsAsHostAndPort(_ authority: ArraySlice<UInt8>) -> Bool {
        var host = authority
        if host.first == UInt8(ascii: "[") {
            guard let close = host.firstIndex(of: UInt8(ascii: "]")) else { return false }
            host = host[(close + 1)...]
            if host.isEmpty { return true }
            guard host.first == UInt8(ascii: ":") else { return false }
        }
        guard let colon = host.firstIndex(of: UInt8(ascii: ":")) else { return true }
        return host[(colon + 1)...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Whitespace and control characters end a token.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F
    }
}

/// Removes URL credentials (`user:password@`, and credential-like query values such as
/// `?token=…`) from any text before it is printed: usage errors, log lines, error details. It works on plain text, not on parsed URLs, because the
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
///
/// Query and fragment values that look like credentials are hidden too
/// (`wss://host/feed?token=***&room=7`, `https://app/cb#access_token=***`):
/// - From a token's first `?` or `#` on, the text is read as `name=value` pairs separated by
///   `&`, `;`, `?` or `#` (so a URL nested in a value, `next=https://h/?sig=…`, is read too),
///   and by their percent-encoded forms `%26`, `%3B`, `%3F`, `%23`, with `%3D` for `=` (a URL
///   percent-encoded in a value, `next=%2Fcb%3Ftoken%3D…`).
/// - A value is hidden when its name, percent-decoded, is sensitive by the one rule for
///   credential names, the one that also decides which headers a cross-origin redirect
///   leaves behind (`HTTPHeaders.isSensitive(_:)`: it contains `auth`, `key`, `token`,
///   `secret`, `session`, `cookie`, `password`, `signature`, `credential` or `access`, so
///   `access_token`, `api_key`, `X-Amz-Signature`, `sessionid`…, or is one of the short
///   names `sig`, `pwd`, `pass`, `passwd`, `jwt`). Every occurrence of a repeated name is
///   hidden; an empty value stays empty (nothing to hide).
/// - A value runs to the next separator or a character a URL never holds unescaped
///   (`"`, `<`, `>`, backtick, `{`, `}`, `|`, `\`, `^`); at the end of the text's token,
///   trailing `'`, `)`, `]`, `.`, `,`, `:` and `!` are taken as the sentence's, not the
///   value's.
///
/// The text is otherwise unchanged; `@` in a path (`http://host/@me`) and percent-encoded
/// characters are left as they are. Linear in the text's length.
package enum URLRedaction {
    /// What replaces the userinfo.
    package static let mask = "***"

    /// `text` with every URL userinfo and every credential-like query or fragment value
    /// replaced by ``mask``.
    package static func redacted(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "%") })
        else { return text }
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
            for range in merged(userinfoRanges(bytes, token: i..<end), queryValueRanges(bytes, token: i..<end)) {
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

    /// Two ordered lists of ranges as one ordered list of disjoint ranges (overlaps joined).
    private static func merged(_ a: [Range<Int>], _ b: [Range<Int>]) -> [Range<Int>] {
        if b.isEmpty { return a }
        if a.isEmpty { return b }
        var out: [Range<Int>] = []
        for range in (a + b).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, range.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                out.append(range)
            }
        }
        return out
    }

    /// The values of credential-like query and fragment parameters in one token, in order.
    private static func queryValueRanges(_ b: [UInt8], token: Range<Int>) -> [Range<Int>] {
        let end = token.upperBound
        guard let start = b[token].firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return []
        }
        var ranges: [Range<Int>] = []
        var i = start + 1
        while i < end {
            // The name: up to `=` (or `%3D`), or a separator for a pair without a value.
            let nameStart = i
            var equals: (at: Int, length: Int)?
            while i < end, separatorLength(b, i, end) == 0 {
                let length = equalsLength(b, i, end)
                if length > 0 {
                    equals = (i, length)
                    break
                }
                i += 1
            }
            guard let equals else {
                if i < end { i += max(1, separatorLength(b, i, end)) }
                continue
            }
            let valueStart = equals.at + equals.length
            var j = valueStart
            while j < end, separatorLength(b, j, end) == 0, !endsValue(b[j]) { j += 1 }
            var valueEnd = j
            if j == end {
                while valueEnd > valueStart, "').],:!".utf8.contains(b[valueEnd - 1]) { valueEnd -= 1 }
            }
            if valueEnd > valueStart, isSensitiveName(b[nameStart..<equals.at]) {
                ranges.append(valueStart..<valueEnd)
            }
            i = j < end ? j + max(1, separatorLength(b, j, end)) : end
        }
        return ranges
    }

    /// Whether a (percent-encoded) parameter name is sensitive, by the rule for header names.
    private static func isSensitiveName(_ raw: ArraySlice<UInt8>) -> Bool {
        if raw.isEmpty { return false }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var i = raw.startIndex
        while i < raw.endIndex {
            if raw[i] == UInt8(ascii: "%"), i + 2 < raw.endIndex, let high = hexValue(raw[i + 1]), let low = hexValue(raw[i + 2]) {
                decoded.append(high << 4 | low)
                i += 3
            } else {
                decoded.append(raw[i])
                i += 1
            }
        }
        let name = String(decoding: decoded, as: UTF8.self).lowercased()
        return HTTPHeaders.isSensitive(name)
    }

    /// 1 for `&`, `;`, `?`, `#`; 3 for their percent-encoded forms; else 0.
    private static func separatorLength(_ b: [UInt8], _ i: Int, _ end: Int) -> Int {
        switch b[i] {
        case UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: "?"), UInt8(ascii: "#"): return 1
        case UInt8(ascii: "%"):
            guard let byte = percentByte(b, i, end) else { return 0 }
            return "&;?#".utf8.contains(byte) ? 3 : 0
        default: return 0
        }
    }

    /// 1 for `=`, 3 for `%3D`; else 0.
    private static func equalsLength(_ b: [UInt8], _ i: Int, _ end: Int) -> Int {
        if b[i] == UInt8(ascii: "=") { return 1 }
        return b[i] == UInt8(ascii: "%") && percentByte(b, i, end) == UInt8(ascii: "=") ? 3 : 0
    }

    /// The byte `%XX` at `i` stands for, if it is one.
    private static func percentByte(_ b: [UInt8], _ i: Int, _ end: Int) -> UInt8? {
        guard i + 2 < end, let high = hexValue(b[i + 1]), let low = hexValue(b[i + 2]) else { return nil }
        return high << 4 | low
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Characters a URL never holds unescaped (RFC 3986 §2): they end a value in prose or JSON.
    private static func endsValue(_ c: UInt8) -> Bool {
        "\"<>`{}|\\^".utf8.contains(c)
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

/// One entry of a `Sec-WebSocket-Extensions` header: a name and its parameters
/// (RFC 6455 §9.1: `name *( ";" param [ "=" value ] )`, entries separated by commas).
package struct WebSocketExtension: Sendable, Hashable, CustomStringConvertible {
    package struct Parameter: Sendable, Hashable {
        package var name: String
        /// nil for a parameter without a value; quoted values are unquoted.
        package var value: String?
        package init(name: String, value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    package var name: String
    package var parameters: [Parameter]

    package init(name: String, parameters: [Parameter] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// The header form, e.g. `permessage-deflate; client_max_window_bits`.
    package var description: String {
        ([name] + parameters.map { p in p.value.map { "\(p.name)=\($0)" } ?? p.name }).joined(separator: "; ")
    }

    /// Parses a header value (or several header lines joined with commas). Names and parameter
    /// names must be tokens; a value is a token or a quoted string whose content is a token
    /// (RFC 6455 §9.1). Throws a `handshake` error on malformed input.
    package static func parse(_ value: String) throws(RealtimeError) -> [WebSocketExtension] {
        var result: [WebSocketExtension] = []
        for entry in try splitOutsideQuotes(value, separator: ",") {
            let parts = try splitOutsideQuotes(entry, separator: ";").map { trim($0) }
            guard let first = parts.first, isToken(first) else {
                if trim(entry).isEmpty { continue }  // empty list elements are allowed (RFC 9110 §5.6.1)
                throw malformed
            }
            var ext = WebSocketExtension(name: first)
            for raw in parts.dropFirst() {
                guard let eq = raw.firstIndex(of: "=") else {
                    guard isToken(raw) else { throw malformed }
                    ext.parameters.append(Parameter(name: raw))
                    continue
                }
                let name = trim(String(raw[..<eq]))
                var value = trim(String(raw[raw.index(after: eq)...]))
                if value.hasPrefix("\"") {
                    guard value.count >= 2, value.hasSuffix("\"") else { throw malformed }
                    value = String(value.dropFirst().dropLast()).replacingBackslashEscapes()
                }
                guard isToken(name), isToken(value) else { throw malformed }
                ext.parameters.append(Parameter(name: name, value: value))
            }
            result.append(ext)
        }
        return result
    }

    private static let malformed = RealtimeError(.handshake, detail: "malformed Sec-WebSocket-Extensions header (RFC 6455 §9.1)")

    /// `s` without leading and trailing spaces and tabs (RFC 9110 §5.6.3 OWS). Byte-wise: a
    /// space followed by a combining mark is one `Character`, but it is still OWS.
    static func trim(_ s: some StringProtocol) -> String {
        let bytes = Substring(s).utf8
        var start = bytes.startIndex, end = bytes.endIndex
        func isOWS(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        while start < end, isOWS(bytes[start]) { start = bytes.index(after: start) }
        while start < end, isOWS(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// RFC 9110 §5.6.2 token characters.
    static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(c)
            }
        }
    }

    private static func splitOutsideQuotes(_ s: String, separator: Character) throws(RealtimeError) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for c in s {
            if escaped { current.append(c); escaped = false; continue }
            if quoted && c == "\\" { current.append(c); escaped = true; continue }
            if c == "\"" { quoted.toggle() }
            if c == separator && !quoted {
                out.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        guard !quoted else { throw malformed }
        out.append(current)
        return out
    }
}

extension String {
    /// Removes the backslashes of a quoted-string's quoted-pairs (RFC 9110 §5.6.4).
    fileprivate func replacingBackslashEscapes() -> String {
        var out = ""
        var escaped = false
        for c in self {
            if !escaped && c == "\\" { escaped = true; continue }
            out.append(c)
            escaped = false
        }
        return out
    }
}

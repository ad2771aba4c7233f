/// A `no_proxy` value: the hosts reached directly even when a proxy is configured, matched
/// as libcurl does (7.86+):
/// - `*` alone matches every host;
/// - entries are separated by commas or spaces; a leading dot and a trailing dot are ignored,
///   so `example.com` and `.example.com` both match `example.com` and every name under it
///   (`api.example.com`), never `badexample.com`; names compare case-insensitively;
/// - for an IP-literal host, an entry is an address (`127.0.0.1`, `::1`, brackets optional)
///   or a CIDR range (`10.0.0.0/8`, `fd00::/8`), compared as addresses;
/// - ports do not take part: the URL's port never matters, and an entry `host:port` is read
///   as `host`.
package struct NoProxyList: Sendable, Hashable {
    private enum Entry: Sendable, Hashable {
        case name(String)
        case network([UInt8], prefix: Int)
    }

    private let matchesAll: Bool
    private let entries: [Entry]

    package init(_ text: String) {
        // Bytes, not Characters: a separator followed by a combining mark is one Character,
        // but libcurl (and this list) still splits there.
        func isBlank(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        matchesAll = text.utf8.filter { !isBlank($0) }.elementsEqual("*".utf8)
        var entries: [Entry] = []
        for raw in text.utf8.split(whereSeparator: { $0 == UInt8(ascii: ",") || isBlank($0) }) {
            var token = Substring(raw)
            if token == "*" {
                entries.append(.network([], prefix: 0))
                continue
            }
            var prefix: Int?
            if let slash = token.firstIndex(of: "/") {
                guard let bits = Int(token[token.index(after: slash)...]), bits >= 0 else { continue }
                prefix = bits
                token = token[..<slash]
            }
            if token.hasPrefix("[") {
                // [v6] or [v6]:port
                guard let close = token.firstIndex(of: "]") else { continue }
                token = token[token.index(after: token.startIndex)..<close]
            } else if token.filter({ $0 == ":" }).count == 1, let colon = token.firstIndex(of: ":") {
                token = token[..<colon] // name:port or v4:port
            }
            if let address = Self.address(token) {
                let bits = min(prefix ?? address.count * 8, address.count * 8)
                entries.append(.network(address, prefix: bits))
                continue
            }
            guard prefix == nil else { continue }
            while token.hasPrefix(".") { token = token.dropFirst() }
            while token.hasSuffix(".") { token = token.dropLast() }
            if !token.isEmpty { entries.append(.name(token.lowercased())) }
        }
        self.entries = entries
    }

    /// Whether `host` (a name, or an IP literal with or without brackets) is to be reached
    /// without the proxy.
    package func matches(host: String) -> Bool {
        if matchesAll { return true }
        var name = Substring(host)
        if name.hasPrefix("["), name.hasSuffix("]") { name = name.dropFirst().dropLast() }
        while name.hasSuffix(".") { name = name.dropLast() }
        if let address = Self.address(name) {
            return entries.contains {
                guard case .network(let network, let prefix) = $0 else { return false }
                if prefix == 0 && network.isEmpty { return true } // "*" in a list
                return network.count == address.count && Self.samePrefix(network, address, bits: prefix)
            }
        }
        let lower = name.lowercased()
        return entries.contains {
            switch $0 {
            case .name(let entry):
                return lower == entry || lower.hasSuffix("." + entry)
            case .network(let network, let prefix):
                return prefix == 0 && network.isEmpty
            }
        }
    }

    private static func samePrefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        var remaining = bits
        var i = 0
        while remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a[i] & mask != b[i] & mask { return false }
            remaining -= 8
            i += 1
        }
        return true
    }

    /// The 4 or 16 bytes of an IPv4 (dotted quad) or IPv6 (RFC 4291 §2.2 text) literal.
    static func address(_ text: Substring) -> [UInt8]? {
        if text.contains(":") { return ipv6(text) }
        return ipv4(text)
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let v = UInt8(part) else { return nil }
            bytes.append(v)
        }
        return bytes
    }

    private static func ipv6(_ text: Substring) -> [UInt8]? {
        // Split at "::" (at most once), parse each side's groups; an IPv4 tail is allowed.
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (i, piece) in pieces.enumerated() {
                if i == pieces.count - 1, piece.contains(".") {
                    guard let v4 = ipv4(piece) else { return nil }
                    out += v4
                    continue
                }
                guard !piece.isEmpty, piece.count <= 4, let v = UInt16(piece, radix: 16) else { return nil }
                out += [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

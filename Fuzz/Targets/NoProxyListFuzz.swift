@testable import RealtimeCore

/// `no_proxy` matching (``NoProxyList``), as libcurl reads the variable.
///
/// Input: a mode byte, an address, a prefix length, then a list and a host. Invariants:
/// - any list and host: no crash; a list of several parts matches exactly what one of its
///   parts matches; the order of entries does not matter; `*` matches everything;
/// - names: a list naming a host matches it, its subdomains, its upper-case spelling and its
///   spelling with a trailing dot, but not a name that merely ends with the same letters;
/// - addresses: an IPv4 or IPv6 address written in any RFC 4291 form (brackets, `::`
///   compression, an embedded IPv4 tail) reads as the same bytes; a CIDR entry matches every
///   address that shares its prefix and no address that differs inside it.
enum NoProxyListFuzz {
    static func check(_ data: UnsafePointer<UInt8>, _ size: Int) {
        var input = FuzzInput(data, size)
        switch input.byte() % 3 {
        case 0: checkCIDR(&input)
        case 1: checkName(&input)
        default: checkAnyList(&input)
        }
    }

    static func checkAnyList(_ input: inout FuzzInput) {
        let first = String(decoding: input.field(max: 64), as: UTF8.self)
        let second = String(decoding: input.field(max: 64), as: UTF8.self)
        let host = String(decoding: input.rest().prefix(64), as: UTF8.self)
        let a = NoProxyList(first), b = NoProxyList(second)
        let both = NoProxyList(first + "," + second), swapped = NoProxyList(second + "," + first)
        let expected = a.matches(host: host) || b.matches(host: host)
        require(both.matches(host: host) == expected, "'\(first),\(second)' and \(short(host)): union broken")
        require(swapped.matches(host: host) == expected, "'\(second),\(first)' and \(short(host)): order matters")
        require(NoProxyList(first + ",*").matches(host: host), "'*' in a list does not match \(short(host))")
    }

    /// A DNS name of 1-4 labels from the input: each starts with a letter (so no name reads
    /// as an IP address, which is matched by address, never by name), then letters, digits
    /// and hyphens.
    static func name(_ input: inout FuzzInput) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let alphabet = letters + Array("0123456789-")
        let labels = 1 + Int(input.byte() % 4)
        return (0..<labels).map { _ in
            String([letters[Int(input.byte()) % letters.count]]
                + (0..<Int(input.byte() % 8)).map { _ in alphabet[Int(input.byte()) % alphabet.count] })
        }.joined(separator: ".")
    }

    static func checkName(_ input: inout FuzzInput) {
        let host = name(&input)
        let sub = name(&input)
        for entry in [host, "." + host, host + ".", host + ":8080", "x.invalid, \(host)"] {
            let list = NoProxyList(entry)
            require(list.matches(host: host), "'\(entry)' does not match \(host)")
            require(list.matches(host: sub + "." + host), "'\(entry)' does not match \(sub).\(host)")
            require(list.matches(host: host.uppercased()), "'\(entry)' does not match \(host.uppercased())")
            require(list.matches(host: host + "."), "'\(entry)' does not match \(host).")
            require(!list.matches(host: "a" + host), "'\(entry)' matches a\(host)")
        }
    }

    static func hex(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
    }

    /// Spellings of one address: dotted quad, or IPv6 full, `::`-compressed at the input's
    /// chosen run, with an IPv4 tail, in brackets.
    static func spellings(_ bytes: [UInt8], _ input: inout FuzzInput) -> [String] {
        if bytes.count == 4 { return [bytes.map(String.init).joined(separator: ".")] }
        let groups = hex(bytes)
        var forms = [groups.joined(separator: ":"), "[" + groups.joined(separator: ":") + "]"]
        let start = Int(input.byte() % 8)
        let end = start + Int(input.byte()) % (8 - start + 1)
        if end > start, groups[start..<end].allSatisfy({ $0 == "0" }) {
            forms.append(groups[..<start].joined(separator: ":") + "::" + groups[end...].joined(separator: ":"))
        }
        let tail = bytes[12...].map(String.init).joined(separator: ".")
        forms.append(groups[..<6].joined(separator: ":") + ":" + tail)
        return forms
    }

    static func checkCIDR(_ input: inout FuzzInput) {
        let v6 = input.bool()
        var address = (0..<(v6 ? 16 : 4)).map { _ in input.byte() }
        // Runs of zero groups so the `::` forms are exercised.
        if v6 { for i in 0..<16 where input.byte() & 3 == 0 { address[i] = 0 } }
        let bits = address.count * 8
        let prefix = Int(input.byte()) % (bits + 1)
        for form in spellings(address, &input) {
            let bare = form.hasPrefix("[") ? Substring(form.dropFirst().dropLast()) : Substring(form)
            require(NoProxyList.address(bare) == address, "\(form) read as \(String(describing: NoProxyList.address(bare)))")
            let list = NoProxyList("\(form)/\(prefix)")
            require(list.matches(host: form), "'\(form)/\(prefix)' does not match \(form)")
            // Flip one bit: inside the prefix the address leaves the network, outside it stays.
            let bit = Int(input.byte()) % bits
            var other = address
            other[bit / 8] ^= 0x80 >> UInt8(bit % 8)
            let otherForm = spellings(other, &input)[0]
            require(list.matches(host: otherForm) == (bit >= prefix), "'\(form)/\(prefix)' and \(otherForm) (bit \(bit))")
            require(NoProxyList(form).matches(host: otherForm) == false, "'\(form)' matches \(otherForm)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNoProxyList(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    NoProxyListFuzz.check(data, size)
    return 0
}

/// A one-pass RFC 8259 parser into ``JSONValue``, over UTF-8 bytes, linear in their length:
/// strings have their escapes resolved (a lone surrogate becomes U+FFFD), numbers are read as
/// `Double`, an object's duplicate names keep the last value, and nesting deeper than
/// `maxDepth` is refused (nil), as is anything that is not one JSON value.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) -> JSONValue? {
        guard let c = current else { return nil }
        switch c {
        // `depth` arrays and objects enclose this value: one more may open within the limit.
        case UInt8(ascii: "{"): return depth < maxDepth ? object(depth: depth + 1) : nil
        case UInt8(ascii: "["): return depth < maxDepth ? array(depth: depth + 1) : nil
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
        var i = index
        for byte in word.utf8 {
            guard i < bytes.count, bytes[i] == byte else { return nil }
            i += 1
        }
        index = i
        return value
    }

    mutating func object(depth: Int) -> JSONValue? {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let name = string() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            guard let member = value(depth: depth) else { return nil }
            members[name] = member
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    mutating func array(depth: Int) -> JSONValue? {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string from its opening quote; escapes resolved (RFC 8259 §7).
    mutating func string() -> String? {
        index += 1
        let bytes = self.bytes
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ end: Int) {
            if end > runStart {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<end])
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            }
        }
        while let c = current {
            switch c {
            case UInt8(ascii: "\""):
                flushRun(index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flushRun(index)
                index += 1
                guard let scalar = escape() else { return nil }
                scalars.append(scalar)
                runStart = index
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    mutating func escape() -> Unicode.Scalar? {
        guard let c = current else { return nil }
        index += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(c)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(unit) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { return "\u{FFFD}" }
                index += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return "\u{FFFD}" }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(unit) ?? "\u{FFFD}"
        default: return nil
        }
    }

    mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    /// `-? int frac? exp?` (RFC 8259 §6), compared by value.
    mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard digits(leadingZeroAlone: true) else { return nil }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits(leadingZeroAlone: false) else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits(leadingZeroAlone: false) else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return Double(text).map(JSONValue.number)
    }

    /// One or more digits; with `leadingZeroAlone`, a leading `0` is the whole integer part.
    mutating func digits(leadingZeroAlone: Bool) -> Bool {
        let start = index
        if leadingZeroAlone, current == UInt8(ascii: "0") {
            index += 1
            return true
        }
        while let c = current, c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }
}

/// Checks that bytes are one JSON value (RFC 8259) and finds the top-level elements of an
/// array, without building a value: Socket.IO payloads stay opaque JSON text, decoded by the
/// application with `Decodable` only when it asks.
///
/// Nesting is bounded by ``maxDepth`` (a hostile `[[[[…` costs no stack beyond it).
struct SocketIOJSONScanner {
    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 128

    enum Failure: Error, Equatable {
        case invalid
        case tooDeep
    }

    private let bytes: [UInt8]
    private var index: Int

    private init(_ bytes: [UInt8], from start: Int) {
        self.bytes = bytes
        self.index = start
    }

    /// The ranges of the elements of the JSON array `bytes[start...]` (nothing but
    /// whitespace may follow it).
    static func arrayElements(_ bytes: [UInt8], from start: Int = 0) throws(Failure) -> [Range<Int>] {
        var scanner = SocketIOJSONScanner(bytes, from: start)
        scanner.skipSpace()
        guard scanner.peek == UInt8(ascii: "[") else { throw .invalid }
        scanner.index += 1
        var ranges: [Range<Int>] = []
        scanner.skipSpace()
        if scanner.peek == UInt8(ascii: "]") {
            scanner.index += 1
        } else {
            while true {
                scanner.skipSpace()
                let begin = scanner.index
                try scanner.value(depth: 1)
                ranges.append(begin..<scanner.index)
                scanner.skipSpace()
                guard let c = scanner.peek else { throw .invalid }
                scanner.index += 1
                if c == UInt8(ascii: "]") { break }
                guard c == UInt8(ascii: ",") else { throw .invalid }
            }
        }
        try scanner.end()
        return ranges
    }

    /// Whether `bytes[start...]` is one JSON value; its first byte (after whitespace), or nil
    /// when there is nothing but whitespace.
    @discardableResult
    static func validate(_ bytes: [UInt8], from start: Int = 0) throws(Failure) -> UInt8? {
        var scanner = SocketIOJSONScanner(bytes, from: start)
        scanner.skipSpace()
        guard let first = scanner.peek else { return nil }
        try scanner.value(depth: 0)
        try scanner.end()
        return first
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func end() throws(Failure) {
        skipSpace()
        guard index == bytes.count else { throw .invalid }
    }

    private mutating func skipSpace() {
        while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
    }

    private mutating func value(depth: Int) throws(Failure) {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        guard let c = peek else { throw .invalid }
        switch c {
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), keyed: false, depth: depth + 1)
        case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), keyed: true, depth: depth + 1)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    private mutating func container(close: UInt8, keyed: Bool, depth: Int) throws(Failure) {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        index += 1
        skipSpace()
        if peek == close {
            index += 1
            return
        }
        while true {
            skipSpace()
            if keyed {
                guard peek == UInt8(ascii: "\"") else { throw .invalid }
                try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw .invalid }
                index += 1
                skipSpace()
            }
            try value(depth: depth)
            skipSpace()
            guard let c = peek else { throw .invalid }
            index += 1
            if c == close { return }
            guard c == UInt8(ascii: ",") else { throw .invalid }
        }
    }

    private mutating func string() throws(Failure) {
        index += 1
        while let c = peek {
            index += 1
            switch c {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                guard let e = peek else { throw .invalid }
                index += 1
                if e == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let h = peek, h.isHexDigit else { throw .invalid }
                        index += 1
                    }
                } else if !"\"\\/bfnrt".utf8.contains(e) {
                    throw .invalid
                }
            case 0..<0x20: throw .invalid
            default: break
            }
        }
        throw .invalid
    }

    private mutating func literal(_ word: String) throws(Failure) {
        for expected in word.utf8 {
            guard peek == expected else { throw .invalid }
            index += 1
        }
    }

    /// `-? int frac? exp?` (RFC 8259 §6).
    private mutating func number() throws(Failure) {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, first.isDigit else { throw .invalid }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard peek?.isDigit == true else { throw .invalid }
            skipDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard peek?.isDigit == true else { throw .invalid }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while peek?.isDigit == true { index += 1 }
    }
}

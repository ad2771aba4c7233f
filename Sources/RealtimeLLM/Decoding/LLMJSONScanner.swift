/// Reads a few members of a JSON object's top level without decoding it: for what runs on
/// the I/O thread for every message (an end marker's type, a resume cursor's sequence
/// number), where a full decode would cost more than the message is worth.
///
/// One pass over the bytes, no allocation: strings are skipped with their escapes, nested
/// objects and arrays by depth, so a key inside a nested value or a string never matches.
/// Keys are compared as raw bytes (a key written with `\u` escapes does not match). Malformed
/// input ends the scan early; what it found by then is returned.
enum LLMJSONScanner {
    /// Calls `visit` with each top-level member's key (the bytes between its quotes) and
    /// value (from its first to its last byte) in order, while `visit` returns true.
    static func members(
        of bytes: UnsafeBufferPointer<UInt8>,
        _ visit: (_ key: Slice<UnsafeBufferPointer<UInt8>>, _ value: Slice<UnsafeBufferPointer<UInt8>>) -> Bool
    ) {
        var i = skipSpace(bytes, 0)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return }
        i += 1
        while true {
            i = skipSpace(bytes, i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return }
            guard let keyEnd = stringEnd(bytes, i) else { return }
            let key = bytes[(i + 1)..<(keyEnd - 1)]
            i = skipSpace(bytes, keyEnd)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return }
            let valueStart = skipSpace(bytes, i + 1)
            guard let valueEnd = valueEnd(bytes, valueStart) else { return }
            guard visit(key, bytes[valueStart..<valueEnd]) else { return }
            i = skipSpace(bytes, valueEnd)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return }
            i += 1
        }
    }

    /// Calls `visit` with each element of the array `value` (from its first to its last byte)
    /// in order, while `visit` returns true. A value that is not an array visits nothing.
    static func elements(
        of value: Slice<UnsafeBufferPointer<UInt8>>, _ visit: (_ element: Slice<UnsafeBufferPointer<UInt8>>) -> Bool
    ) {
        let bytes = value.base
        var i = skipSpace(bytes, value.startIndex)
        guard i < value.endIndex, bytes[i] == UInt8(ascii: "[") else { return }
        i = skipSpace(bytes, i + 1)
        while i < value.endIndex, bytes[i] != UInt8(ascii: "]") {
            guard let end = valueEnd(bytes, i), end <= value.endIndex, visit(bytes[i..<end]) else { return }
            i = skipSpace(bytes, end)
            guard i < value.endIndex, bytes[i] == UInt8(ascii: ",") else { return }
            i = skipSpace(bytes, i + 1)
        }
    }

    /// The top-level string member `name`'s content when it has no escapes, else nil.
    static func string(_ name: StaticString, in bytes: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        var found: Slice<UnsafeBufferPointer<UInt8>>?
        members(of: bytes) { key, value in
            guard equal(key, name) else { return true }
            found = unescapedString(value)
            return false
        }
        return found
    }

    /// A value's string content (without quotes) when it is a string without escapes.
    static func unescapedString(_ value: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") else { return nil }
        let content = value.dropFirst().dropLast()
        return content.contains(UInt8(ascii: "\\")) ? nil : content
    }

    /// A value's non-negative integer, when it is one (digits only, no overflow).
    static func integer(_ value: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard !value.isEmpty, value.count <= 18 else { return nil }
        var n = 0
        for byte in value {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return n
    }

    static func equal(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return bytes.elementsEqual(expected)
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): i += 1
            default: return i
            }
        }
        return i
    }

    /// The index after the closing quote of the string that opens at `start`.
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        var i = start + 1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return nil
    }

    /// The index after the value that starts at `start`.
    private static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(bytes, i) else { return nil }
                    i = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: " "), UInt8(ascii: "\n"),
                    UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    return i > start ? i : nil
                default: i += 1
                }
            }
            return i > start ? i : nil
        }
    }
}

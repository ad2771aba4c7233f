import Foundation
import RealtimeJSON

/// Writes JSON objects, one per line, to a file descriptor with `write(2)` through a buffer
/// (one system call per 64 KiB, not per line).
///
/// Format: `{"key": value, "key2": value2}` — a space after each colon and comma, keys in the
/// given order (a nested object's in sorted order); a whole number is written without a
/// fraction (`1`, not `1.0`), a non-finite one as `null`. Strings are escaped per RFC 8259: `"` and `\`, and every control character
/// below U+0020 (`\n`, `\r`, `\t`, `\b`, `\f`, others as `\u00XX`). Everything else, U+FFFD
/// included, is written as UTF-8. Swift strings are always valid Unicode, so the output is
/// always valid JSON whatever bytes the input had.
///
/// Call ``flush()`` before exiting. Not thread-safe; use one writer per thread.
struct JSONLineWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 16
    /// False once a write failed (e.g. the reader closed the pipe); later output is dropped.
    private(set) var ok = true

    init(fileDescriptor: Int32 = STDOUT_FILENO) {
        self.fd = fileDescriptor
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    /// Writes one object as a line.
    mutating func write(_ fields: KeyValuePairs<String, JSONValue>) {
        writeObject(fields)
    }

    /// Writes one object as a line, from fields built at run time (optional keys left out).
    mutating func write(_ fields: [(key: String, value: JSONValue)]) {
        writeObject(fields)
    }

    private mutating func writeObject<Fields: Sequence>(_ fields: Fields)
    where Fields.Element == (key: String, value: JSONValue) {
        appendObject(fields)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.flushThreshold { flush() }
    }

    private mutating func appendObject<Fields: Sequence>(_ fields: Fields)
    where Fields.Element == (key: String, value: JSONValue) {
        buffer.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in fields {
            if !first { buffer.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
            first = false
            appendString(key)
            buffer.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            appendValue(value)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    private mutating func appendValue(_ value: JSONValue) {
        switch value {
        case .string(let s): appendString(s)
        case .number(let d): buffer.append(contentsOf: Self.number(d).utf8)
        case .bool(let b): buffer.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: buffer.append(contentsOf: "null".utf8)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { buffer.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                appendValue(element)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let members): appendObject(members.sorted { $0.key < $1.key }.lazy.map { (key: $0.key, value: $0.value) })
        }
    }

    /// A whole number below 2^53 without a fraction, others as Swift's shortest decimal.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 9.0e15 { return String(Int64(d)) }
        return String(d)
    }

    /// Writes everything buffered.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        if ok {
            ok = buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += n
                }
                return true
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The JSON text of `s` (quoted and escaped), for tests and other writers.
    static func quoted(_ s: String) -> String {
        var w = JSONLineWriter(fileDescriptor: -1)
        w.appendString(s)
        return String(decoding: w.buffer, as: UTF8.self)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ s: String) {
        buffer.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Copy runs that need no escape in one go.
            var runStart = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                buffer.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
                case 0x0A: buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(UInt8(ascii: "r"))
                case 0x09: buffer.append(UInt8(ascii: "t"))
                case 0x08: buffer.append(UInt8(ascii: "b"))
                case 0x0C: buffer.append(UInt8(ascii: "f"))
                default:
                    buffer.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                               Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]])
                }
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// An integer, as rtcat's lines write it.
    static func int(_ value: Int) -> JSONValue { .number(Double(value)) }
    /// A number of seconds or another fraction.
    static func double(_ value: Double) -> JSONValue { .number(value) }
}

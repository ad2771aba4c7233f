#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value (RFC 8259): what MCP tool arguments, results and JSON-RPC payloads are made
/// of, and what the SDK compares when it matches an application heartbeat's reply as JSON.
///
/// Numbers are kept as `Double` (JSON-RPC ids, progress values and MCP's integers all fit
/// exactly below 2^53); object key order is not kept, so two values are equal whatever the
/// order of their members.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as a `Double`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, its members by name (their order is not kept).
    case object([String: JSONValue])

    /// The deepest nesting of arrays and objects parsed (512, as `JSONDecoder`).
    package static let maxDepth = 512

    /// Parses one JSON text (RFC 8259) in one pass, in time linear in its length: nil when it
    /// is not one JSON value or nests deeper than `maxDepth`.
    package static func parse(_ text: String, maxDepth: Int = maxDepth) -> JSONValue? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
            parser.skipWhitespace()
            guard let value = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.index == bytes.count ? value : nil
        }
    }

    /// Whether `a` and `b` are the same JSON value, whatever their whitespace and the order
    /// of object members (numbers by value: `1`, `1.0` and `1e0` are equal); false when either
    /// does not parse within `maxDepth`.
    package static func equivalent(_ a: String, _ b: String, maxDepth: Int = maxDepth) -> Bool {
        guard let left = parse(a, maxDepth: maxDepth), let right = parse(b, maxDepth: maxDepth) else { return false }
        return left == right
    }

    /// The compact JSON text of this value.
    public var jsonData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: every case maps to a JSON value (non-finite
        // numbers, which JSON cannot carry, become null).
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    /// The compact JSON text as a `String`.
    public var jsonString: String { String(decoding: jsonData, as: UTF8.self) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if !n.isFinite {
                try c.encodeNil()
            } else if n == n.rounded(), abs(n) < 9.0e15 {
                try c.encode(Int64(n))
            } else {
                try c.encode(n)
            }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The member `key` of an object; nil for other values or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The string, when this is a string; nil otherwise.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, when this is a number; nil otherwise.
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The array's elements, when this is an array; nil otherwise.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object's members, when this is an object; nil otherwise.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

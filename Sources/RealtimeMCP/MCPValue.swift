#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import RealtimeCore

/// A JSON value: what MCP tool arguments, results and JSON-RPC payloads are made of.
///
/// Numbers are kept as `Double` (JSON-RPC ids, progress values and MCP's integers all fit
/// exactly below 2^53); object key order is not kept.
public enum MCPValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([MCPValue])
    case object([String: MCPValue])

    /// The deepest nesting of arrays and objects ``init(json:)`` parses (as `JSONDecoder`).
    public static let maxDepth = 512

    /// Parses one JSON text (RFC 8259) in one pass, in time linear in its length. Throws
    /// ``MCPError`` code `invalidMessage` when it is not UTF-8, not one JSON value, or nests
    /// deeper than ``maxDepth``.
    public init(json data: Data) throws(MCPError) {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw MCPError(.invalidMessage, detail: "not UTF-8")
        }
        guard let value = JSONEquivalence.parse(text, maxDepth: Self.maxDepth) else {
            throw MCPError(.invalidMessage, detail: "not JSON")
        }
        self.init(value)
    }

    private init(_ value: JSONEquivalence.Value) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(MCPValue.init))
        case .object(let o): self = .object(o.mapValues(MCPValue.init))
        }
    }

    /// The compact JSON text of this value.
    public var jsonData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a MCPValue cannot fail: every case maps to a JSON value (non-finite
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
        } else if let a = try? c.decode([MCPValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: MCPValue].self))
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
    public subscript(key: String) -> MCPValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    public var arrayValue: [MCPValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [String: MCPValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
}

extension MCPValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: MCPValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, MCPValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

import RealtimeCore

/// Any JSON value, decoded as part of an event, for the few places where a decoder hands
/// on a JSON object as text (a Gemini `functionCall`'s `args`, a citation object) without
/// parsing the event twice.
///
/// `json` re-encodes it: object keys sorted, no spaces, strings escaped as RFC 8259 §7
/// requires, numbers as the shortest text that reads back the same.
enum LLMWireValue: Decodable, Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([LLMWireValue])
    case object([String: LLMWireValue])

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: Key.self) {
            var object: [String: LLMWireValue] = [:]
            for key in c.allKeys { object[key.stringValue] = try c.decode(LLMWireValue.self, forKey: key) }
            self = .object(object)
            return
        }
        if var c = try? decoder.unkeyedContainer() {
            var array: [LLMWireValue] = []
            while !c.isAtEnd { array.append(try c.decode(LLMWireValue.self)) }
            self = .array(array)
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let value = try? c.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? c.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? c.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    /// The string at `key` of an object, else nil.
    subscript(key: String) -> String? {
        guard case .object(let object) = self, case .string(let value)? = object[key] else { return nil }
        return value
    }

    /// The value at `key` of an object, else nil.
    func member(_ key: String) -> LLMWireValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The value as compact JSON text.
    var json: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .integer(let value): out += String(value)
        case .number(let value): out += value.isFinite ? "\(value)" : "null"
        case .string(let value): JSONString.append(value, to: &out)
        case .array(let values):
            out += "["
            for (n, value) in values.enumerated() {
                if n > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (n, key) in object.keys.sorted().enumerated() {
                if n > 0 { out += "," }
                JSONString.append(key, to: &out)
                out += ":"
                object[key]!.write(to: &out)
            }
            out += "}"
        }
    }
}

import Foundation
import RealtimeMCP
import Testing

/// `JSONValue(json:)`: one linear pass, strict RFC 8259, and a typed error for anything else.
@Suite("JSONValue parsing")
struct JSONValueTests {
    @Test func everyKindKeepsItsType() throws {
        let value = try JSONValue(json: Data(#"{"a": [true, 1, 1.5e2, "x\u00e9\n", null, {}], "b": false, "c": -0.25}"#.utf8))
        #expect(value == ["a": [true, 1, 150, "xé\n", .null, [:]], "b": false, "c": -0.25])
        #expect(try JSONValue(json: Data("true".utf8)) == .bool(true), "a boolean is not the number 1")
        #expect(try JSONValue(json: Data("1".utf8)) == .number(1))
        #expect(try JSONValue(json: Data(#""\ud83c\udf0d""#.utf8)) == .string("🌍"))
    }

    @Test("what is not one JSON value is invalid_message", arguments: [
        "", "{", "[1,]", "01", "1.", #"{"a" 1}"#, "tru", #""\x""#, "1 2", "\"a\u{01}\"",
    ])
    func invalid(_ text: String) {
        #expect(throws: MCPError.self) { try JSONValue(json: Data(text.utf8)) }
    }

    @Test func invalidUTF8AndTooDeepAreRefused() {
        #expect(throws: MCPError.self) { try JSONValue(json: Data([0x22, 0xE9, 0x22])) }
        let deep = String(repeating: "[", count: JSONValue.maxDepth + 1) + String(repeating: "]", count: JSONValue.maxDepth + 1)
        #expect(throws: MCPError.self) { try JSONValue(json: Data(deep.utf8)) }
        let allowed = String(repeating: "[", count: JSONValue.maxDepth) + String(repeating: "]", count: JSONValue.maxDepth)
        #expect((try? JSONValue(json: Data(allowed.utf8))) != nil)
    }

    /// A body of many small arrays, the shape that cost the type-by-type decoder seconds per
    /// megabyte: parsed whole, and the same value as a round trip through its own encoding.
    @Test func manySmallArraysRoundTrip() throws {
        let rows = (0..<20_000).map { "[\($0), \"r\($0)\", [true, null]]" }.joined(separator: ",")
        let value = try JSONValue(json: Data("{\"rows\": [\(rows)]}".utf8))
        #expect(value["rows"]?.arrayValue?.count == 20_000)
        #expect(try JSONValue(json: value.jsonData) == value)
    }
}

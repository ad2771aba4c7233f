import Foundation
@testable import RealtimeSocketIO
import RealtimeTestSupport
import Testing

/// The validating scanner agrees with `JSONSerialization` on what is JSON, and splits arrays
/// into the exact text of their elements.
@Suite("SocketIOJSONScanner", .timeLimit(.minutes(1)))
struct SocketIOJSONScannerTests {
    @Test("array elements are the exact texts between the commas")
    func elements() throws {
        let text = #" [ "a,b" , {"x":[1,2]} ,-1.5e3,true,null, "\u00e9\"" ] "#
        let bytes = Array(text.utf8)
        let parts = try SocketIOJSONScanner.arrayElements(bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
        #expect(parts == [#""a,b""#, #"{"x":[1,2]}"#, "-1.5e3", "true", "null", #""\u00e9\"""#])
        #expect(try SocketIOJSONScanner.arrayElements(Array("[]".utf8)).isEmpty)
    }

    /// Foundation's parser on Linux takes a trailing comma (`[1,]`), which RFC 8259 does not:
    /// there the scanner refuses what Foundation accepts.
    static func foundationIsLenient(_ text: String) -> Bool {
        text.replacingOccurrences(of: " ", with: "").contains(",]") || text.replacingOccurrences(of: " ", with: "").contains(",}")
    }

    @Test("trailing commas are refused (RFC 8259), though Foundation's parser takes them")
    func trailingCommas() {
        for text in ["[1,]", #"{"a":1,}"#, #"["a",]"#] {
            #expect((try? SocketIOJSONScanner.validate(Array(text.utf8))) == nil, "\(text)")
        }
    }

    @Test("valid and invalid documents, judged like JSONSerialization")
    func agreesWithFoundation() {
        let cases = [
            "1", "-0", "0.5", "1e9", "1E+2", "\"x\"", "[]", "{}", #"{"a":{"b":[]}}"#, "[,1]", "{\"a\"}", "01", "1.", ".5", "-", "tru", "nul", "\"\\x\"", "\"\\u12\"", "[1 2]", "{1:2}", "\"a", "[", "]",
            "  true  ", "[\"\\ud83d\\ude00\"]", "1 1",
        ]
        for text in cases {
            let ours = (try? SocketIOJSONScanner.validate(Array(text.utf8))) != nil
            let theirs = (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
            #expect(ours == theirs, "\(text)")
        }
    }

    @Test("random byte strings from JSON's alphabet: the same verdict as JSONSerialization")
    func randomAgreement() {
        var random = SeededGenerator(seed: 7)
        let alphabet = Array(#"[]{},:"\ 01-.eE+truefalsn"#.utf8)
        for _ in 0..<3000 {
            let count = Int.random(in: 1...12, using: &random)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &random)! }
            if Self.foundationIsLenient(String(decoding: bytes, as: UTF8.self)) { continue }
            let ours = (try? SocketIOJSONScanner.validate(bytes)) != nil
            let theirs = (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
            #expect(ours == theirs, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}

import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// ``SSEParser/strictUTF8``: invalid UTF-8 in `data`, `event` or `id` is an error instead of
/// U+FFFD; the default stays WHATWG replacement. Every case in every chunking.
@Suite(.timeLimit(.minutes(1))) struct SSEParserStrictUTF8Tests {
    static let invalid: [[UInt8]] = [[0xFF], [0xC3, 0x28], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80]]

    private func input(_ prefix: String, _ bad: [UInt8], _ suffix: String) -> [UInt8] {
        Array(prefix.utf8) + bad + Array(suffix.utf8)
    }

    @Test("invalid data, event or id: invalid_utf8 after the events before it")
    func strictRejects() {
        for bad in Self.invalid {
            for (prefix, suffix) in [("data: x", "y\n\n"), ("event: t", "\ndata: x\n\n"), ("id: i", "\ndata: x\n\n"), ("data: ok\ndata: ", "\n\n")] {
                let bytes = Array("data: first\n\n".utf8) + input(prefix, bad, suffix)
                let strict = parseSSE(bytes, strictUTF8: true)
                #expect(strict.error == .invalidUTF8, "\(prefix) \(bad)")
                #expect(strict.outputs == [.event(ServerSentEvent(type: "message", data: "first", lastEventID: ""))])
                // The default decodes with U+FFFD and goes on.
                let lenient = parseSSE(bytes)
                #expect(lenient.error == nil, "\(prefix) \(bad)")
                #expect(lenient.outputs.count == 2, "\(prefix) \(bad)")
            }
        }
    }

    @Test("valid multi-byte text split anywhere, and invalid bytes in comments and unknown fields, pass")
    func strictAccepts() {
        let text = "data: h\u{E9}llo \u{20AC} \u{1F600}\nevent: \u{65E5}\nid: \u{672C}\n\n"
        let r = parseSSE(text, strictUTF8: true)
        #expect(r.error == nil)
        #expect(r.outputs == [.event(ServerSentEvent(type: "\u{65E5}", data: "h\u{E9}llo \u{20AC} \u{1F600}", lastEventID: "\u{672C}"))])
        let ignored = input(": comment ", [0xFF], "\n") + input("unknown: ", [0xC3, 0x28], "\n") + Array("data: ok\n\n".utf8)
        #expect(parseSSE(ignored, strictUTF8: true).outputs == [.event(ServerSentEvent(type: "message", data: "ok", lastEventID: ""))])
        // Pending (never dispatched) invalid data at the end of the stream is not an error.
        #expect(parseSSE(input("data: ", [0xFF], "\n"), strictUTF8: true).error == nil)
    }

    @Test("the error is a protocol error and names the field")
    func errorShape() throws {
        var parser = SSEParser(strictUTF8: true)
        do {
            _ = try parser.feed(input("event: ", [0xFF], "\n"))
            Issue.record("no error")
        } catch let error as RealtimeError {
            #expect(error.code == .invalidUTF8)
            #expect(error.failureClass == .protocol)
            #expect(error.detail?.contains("event") == true)
        }
        // The borrowing feed fails the same way.
        var borrowing = SSEParser(strictUTF8: true)
        #expect(throws: RealtimeError.self) {
            try self.input("data: ", [0xFF], "\n\n").withUnsafeBytes { raw in
                try borrowing.feed(raw, { _ in }) { _ in Issue.record("event delivered") }
            }
        }
    }
}

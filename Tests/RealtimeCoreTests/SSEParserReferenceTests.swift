import Testing
import RealtimeTestSupport
@testable import RealtimeCore

/// Differential test: the fast byte-level parser against a literal transcription of WHATWG
/// HTML §9.2.5–9.2.6 that decodes the whole stream first and works on Unicode scalars.
@Suite(.timeLimit(.minutes(1))) struct SSEParserReferenceTests {
    /// The spec, step by step, with no attention to speed; plus the SDK's bound on ids
    /// (`maxIDLength` bytes, not in WHATWG), applied like the NUL rule.
    static func reference(_ bytes: [UInt8], maxIDLength: Int = SSEParser.Limits.default.maxIDLength) -> (outputs: [SSEParser.Output], lastEventID: String) {
        var input = bytes[...]
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { input = input.dropFirst(3) }  // UTF-8 decode strips one BOM
        let text = Array(String(decoding: input, as: UTF8.self).unicodeScalars)
        var lines: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        var i = 0
        while i < text.count {
            let c = text[i]
            if c == "\r" {
                lines.append(current)
                current = []
                if i + 1 < text.count && text[i + 1] == "\n" { i += 1 }
            } else if c == "\n" {
                lines.append(current)
                current = []
            } else {
                current.append(c)
            }
            i += 1
        }
        // `current` is an unterminated line: pending data at end of stream, discarded.
        func string(_ s: [Unicode.Scalar]) -> String { var v = String.UnicodeScalarView(); v.append(contentsOf: s); return String(v) }
        var out: [SSEParser.Output] = []
        var dataBuffer: [Unicode.Scalar] = []
        var eventType: [Unicode.Scalar] = []
        var idBuffer: [Unicode.Scalar] = []
        var lastEventID: [Unicode.Scalar] = []
        for line in lines {
            if line.isEmpty {
                lastEventID = idBuffer
                if dataBuffer.isEmpty { eventType = []; continue }
                if dataBuffer.last == "\n" { dataBuffer.removeLast() }
                out.append(.event(ServerSentEvent(type: eventType.isEmpty ? "message" : string(eventType), data: string(dataBuffer), lastEventID: string(lastEventID))))
                dataBuffer = []
                eventType = []
                continue
            }
            if line[0] == ":" { continue }
            let field: [Unicode.Scalar], value: [Unicode.Scalar]
            if let colon = line.firstIndex(of: ":") {
                field = Array(line[..<colon])
                var v = Array(line[(colon + 1)...])
                if v.first == " " { v.removeFirst() }
                value = v
            } else {
                field = line
                value = []
            }
            switch string(field) {
            case "event": eventType = value
            case "data": dataBuffer += value + ["\n"]
            case "id": if !value.contains("\0") && string(value).utf8.count <= maxIDLength { idBuffer = value }
            case "retry":
                if !value.isEmpty && value.allSatisfy({ $0.properties.numericType != nil && $0.isASCII }) {
                    var ms = 0
                    var overflow = false
                    for d in value where !overflow {
                        let (m, o1) = ms.multipliedReportingOverflow(by: 10)
                        let (s, o2) = m.addingReportingOverflow(Int(d.value) - 48)
                        if o1 || o2 { overflow = true } else { ms = s }
                    }
                    out.append(.retry(milliseconds: overflow ? .max : ms))
                }
            default: break
            }
        }
        return (out, string(lastEventID))
    }

    static let fragments: [[UInt8]] = [
        "data", "data:", "data: ", "event:", "event: ", "id:", "id: ", "retry:", "retry: ", ":", " ", "x", "hello",
        "123", "9", "é", "日本", "🎉", "Data", "ID", "ev", "ent", "\r", "\n", "\r\n", "\n\n", "\r\r", "\r\n\r\n", "\0",
        // Whole lines, so that events and retries are frequent.
        "data: a\n", "data:b\r\n", "\ndata: é🎉\n\n", "retry: 250\n", "id: 7\r", "event: t\n", "\n",
    ].map { Array($0.utf8) } + [[0xEF, 0xBB, 0xBF], [0xEF, 0xBB], [0xFF], [0xC3], [0xE6, 0x97], [0xF0, 0x9F], [0x80], [0xED, 0xA0, 0x80]]

    @Test func randomStreamsMatchTheSpecTranscription() throws {
        var rng = SeededGenerator(seed: 2024)
        var events = 0, retries = 0
        for round in 0..<400 {
            var input: [UInt8] = []
            if Int.random(in: 0..<4, using: &rng) == 0 { input += [0xEF, 0xBB, 0xBF] }
            for _ in 0..<Int.random(in: 0...60, using: &rng) {
                input += Self.fragments[Int.random(in: 0..<Self.fragments.count, using: &rng)]
            }
            let expected = Self.reference(input)
            // parseSSE feeds every chunking and checks they agree with each other.
            let got = parseSSE(input)
            #expect(got.error == nil)
            #expect(got.outputs == expected.outputs, "round \(round): \(input)")
            #expect(got.lastEventID == expected.lastEventID, "round \(round)")
            events += got.events.count
            retries += got.outputs.count - got.events.count
        }
        // The generator must actually exercise dispatch and retry.
        #expect(events > 300)
        #expect(retries > 10)
    }
}

@testable import RealtimeCore

/// WHATWG HTML §9.2.5–9.2.6 transcribed step by step over bytes, with no attention to speed:
/// the model the fuzzer compares ``SSEParser`` with. Sizes are checked the way
/// ``SSEParser/Limits`` defines them (a line without its terminator; an event's data values
/// joined with LF), and the first line that crosses a limit ends the stream with that error.
struct SSEReference {
    var outputs: [SSEParser.Output] = []
    var lastEventID: String
    var limitError: RealtimeError.Code?

    init(_ stream: [UInt8], lastEventID initialID: String, limits: SSEParser.Limits) {
        lastEventID = initialID
        var bytes = stream[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // one BOM
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == 0x0D || b == 0x0A {
                lines.append(bytes[start..<i])
                if b == 0x0D, i + 1 < bytes.endIndex, bytes[i + 1] == 0x0A { i += 1 }
                start = i + 1
            }
            i += 1
        }
        let pending = bytes[start...]  // no terminator: discarded, but bounded like any line
        var state = State(idBuffer: Array(initialID.utf8))
        for line in lines {
            if line.count > limits.maxLineLength { limitError = .lineTooLong; break }
            if !state.interpret(line, maxEventSize: limits.maxEventSize, into: &outputs, lastEventID: &lastEventID) {
                limitError = .eventTooLarge
                break
            }
        }
        // A stream that is a proper prefix of the BOM has no line yet: it may still be a BOM.
        let undecided = stream.count < 3 && [0xEF, 0xBB, 0xBF].starts(with: stream)
        if limitError == nil, !undecided, pending.count > limits.maxLineLength { limitError = .lineTooLong }
    }

    private struct State {
        var data: [UInt8] = []
        var hasData = false
        var eventType: [UInt8] = []
        var idBuffer: [UInt8]

        /// One line; false when it made the event too large.
        mutating func interpret(
            _ line: ArraySlice<UInt8>, maxEventSize: Int, into outputs: inout [SSEParser.Output], lastEventID: inout String
        ) -> Bool {
            if line.isEmpty {
                lastEventID = String(decoding: idBuffer, as: UTF8.self)
                defer { data = []; hasData = false; eventType = [] }
                guard hasData else { return true }
                let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
                outputs.append(.event(ServerSentEvent(
                    type: type, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID)))
                return true
            }
            if line.first == 0x3A { return true }  // comment
            let colon = line.firstIndex(of: 0x3A)
            let name = Array(line[..<(colon ?? line.endIndex)])
            var value = colon.map { line[($0 + 1)...] } ?? []
            if value.first == 0x20 { value = value.dropFirst() }
            switch String(decoding: name, as: UTF8.self) {
            case "event":
                eventType = Array(value)
            case "data":
                if hasData { data.append(0x0A) }
                data += value
                hasData = true
                if data.count > maxEventSize { return false }
            case "id":
                if !value.contains(0) { idBuffer = Array(value) }
            case "retry":
                if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    var ms = 0
                    for d in value {
                        let (m, o1) = ms.multipliedReportingOverflow(by: 10)
                        let (s, o2) = m.addingReportingOverflow(Int(d - 0x30))
                        if o1 || o2 { ms = .max; break }
                        ms = s
                    }
                    outputs.append(.retry(milliseconds: ms))
                }
            default:
                break
            }
            return true
        }
    }
}

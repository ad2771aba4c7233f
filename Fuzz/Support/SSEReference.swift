@testable import RealtimeCore

/// WHATWG HTML §9.2.5–9.2.6 transcribed step by step over bytes, with no attention to speed:
/// the model the fuzzer compares ``SSEParser`` with. It adds the parser's documented bounds:
/// a line (without its terminator) longer than `maxLineLength` or an event's data (values
/// joined with LF) larger than `maxEventSize` ends the stream with that error; an `id` longer
/// than `maxIDLength` is ignored like one with NUL; in strict mode invalid UTF-8 in an
/// `event` or kept `id` value, or in a dispatched event's data, ends it with `invalid_utf8`.
struct SSEReference {
    var outputs: [SSEParser.Output] = []
    var lastEventID: String
    var error: RealtimeError.Code?
    var diagnostics = SSEParser.Diagnostics()

    init(_ stream: [UInt8], lastEventID initialID: String, limits: SSEParser.Limits, strictUTF8: Bool) {
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
        var state = State(limits: limits, strictUTF8: strictUTF8, idBuffer: Array(initialID.utf8))
        for line in lines {
            if line.count > limits.maxLineLength {
                error = .lineTooLong
                break
            }
            if let failure = state.interpret(line, into: &self) {
                error = failure
                break
            }
        }
        // A stream that is a proper prefix of the BOM has no line yet: it may still be a BOM.
        let undecided = stream.count < 3 && [0xEF, 0xBB, 0xBF].starts(with: stream)
        if error == nil, !undecided, pending.count > limits.maxLineLength { error = .lineTooLong }
    }

    private struct State {
        let limits: SSEParser.Limits
        let strictUTF8: Bool
        var data: [UInt8] = []
        var hasData = false
        var eventType: [UInt8] = []
        var idBuffer: [UInt8]

        init(limits: SSEParser.Limits, strictUTF8: Bool, idBuffer: [UInt8]) {
            self.limits = limits
            self.strictUTF8 = strictUTF8
            self.idBuffer = idBuffer
        }

        static func isValid(_ bytes: some Collection<UInt8>) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

        /// One line; the error that ends the stream, if any.
        mutating func interpret(_ line: ArraySlice<UInt8>, into model: inout SSEReference) -> RealtimeError.Code? {
            if line.isEmpty { return dispatch(into: &model) }
            if line.first == 0x3A { return nil }  // comment
            let colon = line.firstIndex(of: 0x3A)
            let name = Array(line[..<(colon ?? line.endIndex)])
            var value = colon.map { line[($0 + 1)...] } ?? []
            if value.first == 0x20 { value = value.dropFirst() }
            switch String(decoding: name, as: UTF8.self) {
            case "event":
                if strictUTF8 && !Self.isValid(value) { return .invalidUTF8 }
                eventType = Array(value)
            case "data":
                if hasData { data.append(0x0A) }
                data += value
                hasData = true
                if data.count > limits.maxEventSize { return .eventTooLarge }
            case "id":
                if value.count > limits.maxIDLength {
                    model.diagnostics.idsTooLong += 1
                    model.diagnostics.longestIgnoredID = max(model.diagnostics.longestIgnoredID, value.count)
                } else if value.contains(0) {
                    model.diagnostics.idsWithNUL += 1
                } else {
                    if strictUTF8 && !Self.isValid(value) { return .invalidUTF8 }
                    idBuffer = Array(value)
                }
            case "retry":
                if let ms = Self.retry(value) { model.outputs.append(.retry(milliseconds: ms)) }
            default:
                break
            }
            return nil
        }

        mutating func dispatch(into model: inout SSEReference) -> RealtimeError.Code? {
            model.lastEventID = String(decoding: idBuffer, as: UTF8.self)
            defer { data = []; hasData = false; eventType = [] }
            guard hasData else { return nil }
            if strictUTF8 && !Self.isValid(data) { return .invalidUTF8 }
            let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
            model.outputs.append(.event(ServerSentEvent(
                type: type, data: String(decoding: data, as: UTF8.self), lastEventID: model.lastEventID)))
            return nil
        }

        /// Only ASCII digits, at least one; saturates at `Int.max`.
        static func retry(_ value: ArraySlice<UInt8>) -> Int? {
            guard !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            var ms = 0
            for d in value {
                let (m, o1) = ms.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int(d - 0x30))
                if o1 || o2 { return .max }
                ms = s
            }
            return ms
        }
    }
}

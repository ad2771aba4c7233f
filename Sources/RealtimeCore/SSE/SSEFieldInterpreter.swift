/// The upper layer of the SSE parser: gives meaning to complete lines (WHATWG HTML §9.2.6,
/// "Interpreting an event stream") and builds events.
///
/// Holds the data buffer, the event type buffer and the last event ID buffer. A `data` value
/// that lies inside the current chunk is *borrowed* (kept as an offset into the chunk, not
/// copied); it is copied into ``owned`` only when a second `data` line arrives or the chunk
/// ends before dispatch (``endOfChunk(_:)``). So an event inside one chunk is decoded straight
/// from the caller's bytes with a single copy, into its `String`.
struct SSEFieldInterpreter: Sendable {
    var maxEventSize: Int
    /// Longer `id` values are ignored (see ``SSEParser/Limits/maxIDLength``).
    let maxIDLength: Int
    /// Invalid UTF-8 in `data`, `event` or `id` throws instead of being replaced.
    let strictUTF8: Bool
    /// Comment lines are passed on as ``SSEParser/Output/comment(_:)``.
    let reportsComments: Bool
    /// Ignored ids, counted.
    private(set) var diagnostics = SSEParser.Diagnostics()
    /// The event type buffer; empty means "message".
    private var eventType = ""
    /// The last event ID buffer (set by `id`).
    private var idBuffer: String
    /// An `id` field was processed since the last dispatch (saves copying an unchanged ID).
    private var idSet = false
    /// The last event ID string (set from the buffer at each dispatch).
    private(set) var lastEventID: String
    /// At least one `data` field since the last dispatch (an empty `data:` still counts).
    private var hasData = false
    /// A data line held a byte ≥ 0x80 (each such line is validated as it arrives, while it
    /// is hot in cache; pure-ASCII lines, known from the line scan, need no validation).
    private var dataNonASCII = false
    /// A data line was not valid UTF-8: decode with U+FFFD replacement at dispatch.
    private var dataInvalid = false
    /// Bytes in the data buffer, without the trailing LF the spec appends (we never store it).
    private var dataCount = 0
    /// Borrowed first data value: offset and length in the current chunk; -1 when none.
    private var borrowedStart = -1
    private var borrowedCount = 0
    /// The data buffer when not borrowed: values joined with LF, from ``ownedStart`` on.
    private var owned: [UInt8] = []
    /// Where the data starts in ``owned``: 0, or past the `data:` prefix of a first data line
    /// whose buffer was taken over from the line splitter (``processBuffered``).
    private var ownedStart = 0
    /// The last decoded event type, so a stream that repeats `event: content_block_delta`
    /// does not decode (and allocate) the same string for every event.
    private var typeCacheBytes: [UInt8] = []
    private var typeCacheString = ""

    init(maxEventSize: Int, maxIDLength: Int = 1024, strictUTF8: Bool = false, reportsComments: Bool = false, lastEventID: String) {
        self.maxEventSize = maxEventSize
        self.maxIDLength = maxIDLength
        self.strictUTF8 = strictUTF8
        self.reportsComments = reportsComments
        self.idBuffer = lastEventID
        self.lastEventID = lastEventID
    }

    /// Interprets one line (without terminator) and passes any output to `emit`. `stable`
    /// says the line lies inside the chunk starting at `chunk` and stays valid until
    /// ``endOfChunk(_:)``. `firstHigh` is the offset of the line's first byte ≥ 0x80 (every
    /// byte before it is ASCII), or any value ≥ the line's length when it is pure ASCII.
    @inline(__always)
    mutating func process(
        _ line: UnsafeRawBufferPointer, chunk: UnsafeRawPointer, stable: Bool, firstHigh: Int,
        _ emit: (SSEParser.Output) throws -> Void, borrowing: Bool, _ events: (SSEParser.BorrowedEvent) throws -> Void
    ) throws {
        let n = line.count
        guard n > 0, let b = line.baseAddress else { return try dispatch(chunk: chunk, emit, borrowing: borrowing, events) }
        let c0 = b.load(as: UInt8.self)
        if c0 == UInt8(ascii: ":") {
            if _slowPath(reportsComments) { try emit(.comment(Self.commentText(b, count: n))) }
            return
        }
        // Fast path: "data:" is by far the most common line.
        if n >= 5, b.loadUnaligned(as: UInt32.self) == Self.dataWord, b.load(fromByteOffset: 4, as: UInt8.self) == UInt8(ascii: ":") {
            let v = n > 5 && b.load(fromByteOffset: 5, as: UInt8.self) == UInt8(ascii: " ") ? 6 : 5
            try appendData(b + v, count: n &- v, chunk: chunk, stable: stable)
            if firstHigh < n { noteNonASCII(b, from: Swift.max(firstHigh, v), to: n) }
            return
        }
        // Field name up to the first colon; the value after it, less one leading space.
        // A line without a colon is a field name with an empty value.
        let colon = ByteScan.first(UInt8(ascii: ":"), in: b, from: 0, to: n)
        var v = colon < n ? colon &+ 1 : n
        if v < n && b.load(fromByteOffset: v, as: UInt8.self) == UInt8(ascii: " ") { v &+= 1 }
        let value = UnsafeRawBufferPointer(start: b + v, count: n &- v)
        switch colon {
        case 4 where b.loadUnaligned(as: UInt32.self) == Self.dataWord:
            try appendData(b + v, count: n &- v, chunk: chunk, stable: stable)
            if firstHigh < n { noteNonASCII(b, from: Swift.max(firstHigh, v), to: n) }
        case 5 where Self.equals(b, "event"):
            try setEventType(value)
        case 2 where b.load(as: UInt8.self) == UInt8(ascii: "i") && b.load(fromByteOffset: 1, as: UInt8.self) == UInt8(ascii: "d"):
            try setID(value)
        case 5 where Self.equals(b, "retry"):
            if let ms = Self.parseRetry(value) { try emit(.retry(milliseconds: ms)) }
        default:
            break  // unknown (or wrong-case) field: ignored
        }
    }

    /// Like ``process(_:chunk:stable:firstHigh:_:borrowing:_:)`` for a line assembled in the
    /// line splitter's buffer (it crossed a chunk boundary). The first data line of an event
    /// takes that buffer over instead of being copied out of it: an event that crosses a chunk
    /// boundary in one line (a 4 KiB event in 16 KiB reads, one in four) costs no extra copy.
    /// `line` is left empty or holding a spare buffer.
    @inline(__always)
    mutating func processBuffered(
        _ line: inout [UInt8], chunk: UnsafeRawPointer, firstHigh: Int,
        _ emit: (SSEParser.Output) throws -> Void, borrowing: Bool, _ events: (SSEParser.BorrowedEvent) throws -> Void
    ) throws {
        let n = line.count
        if !hasData, let v = line.withUnsafeBytes({ Self.dataValueStart($0) }) {
            // No data yet, so `owned` is empty: swap the buffers.
            if _slowPath(n &- v > maxEventSize) {
                throw RealtimeError(.eventTooLarge, detail: "SSE event larger than \(maxEventSize) bytes")
            }
            swap(&owned, &line)
            ownedStart = v
            hasData = true
            dataCount = n &- v
            if firstHigh < n {
                let valid = owned.withUnsafeBytes { SSEUTF8.isValid($0.baseAddress!, nonASCIIFrom: Swift.max(firstHigh, v), to: n) }
                dataNonASCII = true
                if !valid { dataInvalid = true }
            }
            return
        }
        try line.withUnsafeBytes {
            try process($0, chunk: chunk, stable: false, firstHigh: firstHigh, emit, borrowing: borrowing, events)
        }
    }

    /// Where the value starts if `line` is a `data` field (`data:`, `data: ` or a bare `data`).
    @inline(__always)
    private static func dataValueStart(_ line: UnsafeRawBufferPointer) -> Int? {
        let n = line.count
        guard n >= 4, let b = line.baseAddress, b.loadUnaligned(as: UInt32.self) == dataWord else { return nil }
        if n == 4 { return 4 }
        guard b.load(fromByteOffset: 4, as: UInt8.self) == UInt8(ascii: ":") else { return nil }
        return n > 5 && b.load(fromByteOffset: 5, as: UInt8.self) == UInt8(ascii: " ") ? 6 : 5
    }

    /// Copies a borrowed data value out of the chunk before the chunk goes away.
    @inline(__always)
    mutating func endOfChunk(_ chunk: UnsafeRawPointer) {
        if borrowedStart >= 0 {
            owned.appendBytes(chunk + borrowedStart, count: borrowedCount)
            borrowedStart = -1
        }
    }

    /// End of stream: pending data and event type are discarded; the last event ID stays.
    mutating func reset() {
        clearEvent()
        idBuffer = lastEventID
        idSet = false
    }

    // MARK: Fields

    @inline(__always)
    private mutating func appendData(_ p: UnsafeRawPointer, count: Int, chunk: UnsafeRawPointer, stable: Bool) throws {
        let newCount = hasData ? dataCount &+ 1 &+ count : count
        if _slowPath(newCount > maxEventSize) {
            throw RealtimeError(.eventTooLarge, detail: "SSE event larger than \(maxEventSize) bytes")
        }
        if !hasData {
            hasData = true
            if stable {
                borrowedStart = chunk.distance(to: p)
                borrowedCount = count
            } else {
                owned.appendBytes(p, count: count)
            }
        } else {
            if borrowedStart >= 0 {
                owned.reserveCapacity(newCount)
                owned.appendBytes(chunk + borrowedStart, count: borrowedCount)
                borrowedStart = -1
            }
            owned.append(SSELineSplitter.lf)
            owned.appendBytes(p, count: count)
        }
        dataCount = newCount
    }

    /// Validates the part `line[start..<end]` of a data value that holds a byte ≥ 0x80 at or
    /// after `start`, where every byte of the value before `start` is ASCII (so `start` is a
    /// code point boundary and the value is valid iff this part is). UTF-8 validity of the
    /// joined data is the validity of each line, because the LF that joins them is ASCII.
    @inline(__always)
    private mutating func noteNonASCII(_ line: UnsafeRawPointer, from start: Int, to end: Int) {
        dataNonASCII = true
        if !SSEUTF8.isValid(line, nonASCIIFrom: start, to: end) { dataInvalid = true }
    }

    @inline(__always)
    private mutating func setEventType(_ value: UnsafeRawBufferPointer) throws {
        let same = value.count == typeCacheBytes.count && typeCacheBytes.withUnsafeBytes { cached in
            value.isEmpty || cached.elementsEqual(value)
        }
        if !same {
            if strictUTF8 { try Self.requireValidUTF8(value, field: "event") }
            typeCacheBytes = Array(value)
            typeCacheString = SSEUTF8.string(value)
        }
        eventType = typeCacheString
    }

    /// WHATWG §9.2.6 `id`: sets the last event ID buffer, unless the value contains NUL (it
    /// could not be sent back in a header) or is longer than ``maxIDLength``; either is
    /// ignored and counted in ``diagnostics``.
    private mutating func setID(_ value: UnsafeRawBufferPointer) throws {
        guard let base = value.baseAddress, value.count > 0 else {
            idBuffer = ""
            idSet = true
            return
        }
        if value.count > maxIDLength {
            diagnostics.idsTooLong += 1
            diagnostics.longestIgnoredID = Swift.max(diagnostics.longestIgnoredID, value.count)
            return
        }
        if ByteScan.first(0, in: base, from: 0, to: value.count) != value.count {
            diagnostics.idsWithNUL += 1
            return
        }
        if strictUTF8 { try Self.requireValidUTF8(value, field: "id") }
        idBuffer = SSEUTF8.string(value)
        idSet = true
    }

    /// Strict mode: throws `invalid_utf8` unless `value` is valid UTF-8.
    private static func requireValidUTF8(_ value: UnsafeRawBufferPointer, field: String) throws {
        guard let base = value.baseAddress, !SSEUTF8.validate(base, count: value.count).valid else { return }
        throw RealtimeError(.invalidUTF8, detail: "invalid UTF-8 in an SSE \(field) field")
    }

    /// A comment's text: after the colon, less one leading space (as a field value).
    private static func commentText(_ b: UnsafeRawPointer, count n: Int) -> String {
        let v = n > 1 && b.load(fromByteOffset: 1, as: UInt8.self) == UInt8(ascii: " ") ? 2 : 1
        return SSEUTF8.string(UnsafeRawBufferPointer(start: b + v, count: n &- v))
    }

    /// WHATWG: "If the field value consists of only ASCII digits, then interpret the field
    /// value as an integer in base ten". An empty value has no integer and is ignored.
    static func parseRetry(_ value: UnsafeRawBufferPointer) -> Int? {
        guard !value.isEmpty else { return nil }
        var ms = 0
        var overflow = false
        for byte in value {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            if !overflow {
                let (m, o1) = ms.multipliedReportingOverflow(by: 10)
                let (s, o2) = m.addingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
                if o1 || o2 { overflow = true } else { ms = s }
            }
        }
        return overflow ? Int.max : ms
    }

    // MARK: Dispatch

    /// WHATWG "dispatch the event": the last event ID string is updated even when no event
    /// follows; empty data dispatches nothing but resets the event type.
    @inline(__always)
    private mutating func dispatch(
        chunk: UnsafeRawPointer, _ emit: (SSEParser.Output) throws -> Void,
        borrowing: Bool, _ events: (SSEParser.BorrowedEvent) throws -> Void
    ) throws {
        if idSet {
            lastEventID = idBuffer
            idSet = false
        }
        guard hasData else {
            if !eventType.isEmpty { eventType = "" }
            return
        }
        if _slowPath(dataInvalid && strictUTF8) {
            clearEvent()
            throw RealtimeError(.invalidUTF8, detail: "invalid UTF-8 in an SSE data field")
        }
        if borrowing {
            let type = eventType.isEmpty ? "message" : eventType
            let (valid, ascii) = (!dataInvalid, !dataNonASCII)
            if borrowedStart >= 0 {
                let data = UnsafeRawBufferPointer(start: chunk + borrowedStart, count: borrowedCount)
                clearEvent()
                try events(SSEParser.BorrowedEvent(type: type, lastEventID: lastEventID, data: data, isValidUTF8: valid, isASCII: ascii))
            } else {
                // The owned buffer moves to a local for the callback (no retain and release of
                // it around the call) and is cleared only after the callback has used it.
                var bytes: [UInt8] = []
                swap(&bytes, &owned)
                let start = ownedStart
                defer {
                    swap(&bytes, &owned)
                    clearEvent()
                }
                try bytes.withUnsafeBytes { all in
                    let data = UnsafeRawBufferPointer(rebasing: all[start...])
                    try events(SSEParser.BorrowedEvent(type: type, lastEventID: lastEventID, data: data, isValidUTF8: valid, isASCII: ascii))
                }
            }
            return
        }
        let data: String
        if borrowedStart >= 0 {
            data = SSEUTF8.string(
                validated: UnsafeRawBufferPointer(start: chunk + borrowedStart, count: borrowedCount),
                valid: !dataInvalid, ascii: !dataNonASCII)
        } else {
            let start = ownedStart
            data = owned.withUnsafeBytes {
                SSEUTF8.string(validated: UnsafeRawBufferPointer(rebasing: $0[start...]), valid: !dataInvalid, ascii: !dataNonASCII)
            }
        }
        let event = ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: data, lastEventID: lastEventID)
        clearEvent()
        try emit(.event(event))
    }

    @inline(__always)
    private mutating func clearEvent() {
        hasData = false
        dataNonASCII = false
        dataInvalid = false
        dataCount = 0
        borrowedStart = -1
        ownedStart = 0
        if !eventType.isEmpty { eventType = "" }
        if !owned.isEmpty {
            // Keep up to 1 MiB for the next event (re-growing it for every large event would
            // cost a chain of reallocations and copies); give back a bigger one.
            if owned.capacity > 1 << 20 { owned = [] } else { owned.removeAll(keepingCapacity: true) }
        }
    }

    // MARK: Byte helpers

    /// "data" as a little-endian UInt32, for a one-load comparison.
    private static let dataWord: UInt32 = UInt32(ascii4: (0x64, 0x61, 0x74, 0x61))

    @inline(__always)
    private static func equals(_ b: UnsafeRawPointer, _ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        let s = name.utf8Start
        var i = 0
        while i < n {
            if b.load(fromByteOffset: i, as: UInt8.self) != s[i] { return false }
            i &+= 1
        }
        return true
    }
}

extension UInt32 {
    /// Four bytes in memory order, read as a native (little-endian on all supported targets)
    /// integer the way `loadUnaligned(as: UInt32.self)` reads them.
    fileprivate init(ascii4 b: (UInt8, UInt8, UInt8, UInt8)) {
        let le = UInt32(b.0) | UInt32(b.1) << 8 | UInt32(b.2) << 16 | UInt32(b.3) << 24
        self = UInt32(littleEndian: le)
    }
}

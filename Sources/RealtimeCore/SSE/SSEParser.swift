/// A sans-I/O Server-Sent Events parser that follows WHATWG HTML §9.2.5–9.2.6 ("Parsing an
/// event stream", "Interpreting an event stream") to the letter.
///
/// Feed it the response body in chunks of any size; it calls back with each dispatched
/// event and each valid `retry` field, in stream order. Chunking never changes the result.
///
/// Rules implemented (each has a test fed whole, byte by byte and at random split points):
/// one leading UTF-8 BOM stripped (only one); lines end at CRLF, LF or CR, including a CR at
/// the end of one chunk whose LF starts the next; lines starting with `:` are comments; a
/// line splits at its first colon and one leading space of the value is removed; a line
/// without a colon is a field name with an empty value; `data` values are joined with LF;
/// the event type resets after each dispatch; an event with no `data` field is not
/// dispatched; the last event ID persists across events, is reset by an empty `id`, and an
/// `id` containing NUL is ignored; `retry` is accepted only when all ASCII digits; unknown
/// and wrong-case field names are ignored; pending data at end of stream is discarded.
/// Text is decoded per event with U+FFFD for invalid UTF-8, so a code point split across
/// chunks is never damaged; with `strictUTF8` invalid UTF-8 in a `data`, `event` or `id`
/// value is an `invalid_utf8` error instead. An `id` longer than ``Limits/maxIDLength`` is
/// ignored like one with NUL; both are counted in `diagnostics`.
///
/// Layers: `SSELineSplitter` cuts bytes into lines; `SSEFieldInterpreter` gives the lines
/// meaning. Performance: one SIMD pass finds CR or LF and notes non-ASCII bytes (pure-ASCII
/// lines skip UTF-8 validation); no per-line allocation; an event that lies inside one chunk
/// is decoded straight from the chunk (one allocation per event: its `data` string, none when
/// it is 15 bytes or less); a huge event in tiny chunks costs linear time (nothing is
/// rescanned). Memory is bounded by ``Limits``.
///
/// A value type; not meant to be shared between threads while feeding (it is `Sendable`
/// so it can move to the thread that reads the stream).
///
/// The parser runs inside `SSETransport` (its ``Limits`` set through
/// `SSEOptions.limits`). It is public for a transport of your own (for example
/// `URLSession`'s bytes on Apple platforms): feed it the body, read the events.
///
/// ```swift
/// var parser = SSEParser()
/// for output in try parser.feed(Array("id: 7\ndata: hello\n\n".utf8)) {
///     if case .event(let event) = output { print(event.lastEventID, event.data) }
/// }
/// parser.finish()  // the stream ended; reconnect with parser.lastEventID
/// ```
public struct SSEParser: Sendable {
    private var lines: SSELineSplitter
    private var fields: SSEFieldInterpreter
    /// Set when `feed` threw (a limit, or the consumer's own error): the stream is
    /// abandoned, later feeds rethrow it.
    private var failure: (any Error)?
    package let limits: Limits
    /// Whether invalid UTF-8 in a `data`, `event` or `id` value is an error (`invalid_utf8`)
    /// rather than decoded with U+FFFD as WHATWG's "UTF-8 decode" does. Comments and unknown
    /// fields, whose text is never used, are not checked.
    package let strictUTF8: Bool
    /// Whether comment lines are reported as ``Output/comment(_:)`` (LaunchDarkly's
    /// `onComment`); WHATWG ignores them. Default false.
    package let reportsComments: Bool

    /// - Parameters:
    ///   - limits: line, event and id size bounds (``Limits/default``: 16 MiB events, lines
    ///     as long as an event, 1 KiB ids).
    ///   - lastEventID: the ID to start from, e.g. the one a reconnecting client sent in
    ///     `Last-Event-ID`; events carry it until the stream sends an `id` field.
    ///   - strictUTF8: invalid UTF-8 in a `data`, `event` or `id` value is an `invalid_utf8`
    ///     error instead of being decoded with U+FFFD. Default false (WHATWG replacement).
    ///   - reportsComments: comment lines come out as ``Output/comment(_:)``. Default false
    ///     (WHATWG ignores them).
    public init(limits: Limits = .default, lastEventID: String = "", strictUTF8: Bool = false, reportsComments: Bool = false) {
        self.limits = limits
        self.strictUTF8 = strictUTF8
        self.reportsComments = reportsComments
        self.lines = SSELineSplitter(maxLineLength: limits.maxLineLength)
        self.fields = SSEFieldInterpreter(
            maxEventSize: limits.maxEventSize, maxIDLength: limits.maxIDLength, strictUTF8: strictUTF8,
            reportsComments: reportsComments, lastEventID: lastEventID)
    }

    /// What was ignored so far (ids with NUL, ids too long); see ``Diagnostics``.
    package var diagnostics: Diagnostics { fields.diagnostics }

    /// The last event ID string (WHATWG): the `id` in force at the most recent dispatch point
    /// (blank line), kept across events — including a blank line that dispatched nothing.
    /// Send it as `Last-Event-ID` when reconnecting.
    public var lastEventID: String { fields.lastEventID }

    /// Feeds the next chunk of the stream; calls `emit` for each output, in order.
    ///
    /// Throws ``RealtimeError`` `line_too_long` / `event_too_large` when a limit is crossed,
    /// `invalid_utf8` in `strictUTF8` mode, or whatever `emit` throws. After any throw the stream is abandoned: later calls
    /// rethrow the same error until ``finish()``.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (Output) throws -> Void) throws {
        try feed(bytes, emit, borrowing: false) { _ in }
    }

    /// A dispatched event whose `data` is still the stream's bytes, valid only during the
    /// callback: for a caller that copies the bytes somewhere of its own and builds the
    /// `String` later (or on another thread). The same event ``feed(_:_:)`` would emit.
    package struct BorrowedEvent {
        /// The event type (`"message"` by default).
        package let type: String
        /// The last event ID at dispatch.
        package let lastEventID: String
        /// The `data` lines joined with LF, as bytes (not yet decoded).
        package let data: UnsafeRawBufferPointer
        /// Whether `data` is valid UTF-8 (if not, decode with U+FFFD replacement).
        package let isValidUTF8: Bool
        /// Whether `data` is pure ASCII.
        package let isASCII: Bool

        /// `data` decoded now (U+FFFD for invalid sequences), as ``feed(_:_:)`` would give it.
        package func decodedData() -> String {
            SSEUTF8.string(validated: data, valid: isValidUTF8, ascii: isASCII)
        }
    }

    /// Like ``feed(_:_:)``, but events go to `events` with their data as borrowed bytes; `emit`
    /// receives only `retry` (and `comment`) outputs. Same rules, order and errors.
    package mutating func feed(
        _ bytes: UnsafeRawBufferPointer, _ emit: (Output) throws -> Void, borrowing events: (BorrowedEvent) throws -> Void
    ) throws {
        try feed(bytes, emit, borrowing: true, events)
    }

    /// `borrowing` picks where events go. (Not an optional closure: that would be escaping,
    /// retained and released around every event.)
    @inline(__always)
    private mutating func feed(
        _ bytes: UnsafeRawBufferPointer, _ emit: (Output) throws -> Void, borrowing: Bool, _ events: (BorrowedEvent) throws -> Void
    ) throws {
        if let failure { throw failure }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        do {
            var cursor = lines.begin(bytes)
            while let line = lines.next(bytes, &cursor) {
                switch line {
                case .chunk(let start, let end):
                    try fields.process(
                        UnsafeRawBufferPointer(start: base + start, count: end &- start), chunk: base, stable: true,
                        firstHigh: lines.lineFirstHigh, emit, borrowing: borrowing, events)
                case .buffered:
                    let firstHigh = lines.lineFirstHigh
                    try lines.withPartial {
                        try fields.processBuffered(&$0, chunk: base, firstHigh: firstHigh, emit, borrowing: borrowing, events)
                    }
                    lines.consumedBuffered()
                case .tooLong:
                    throw lines.tooLongError
                }
            }
            fields.endOfChunk(base)
        } catch {
            // Never keep an offset into a chunk we no longer see.
            fields.endOfChunk(base)
            failure = error
            throw error
        }
    }

    /// Feeds bytes from any byte collection (`[UInt8]`, `ArraySlice`, `Data`…) and returns
    /// the outputs. Same rules and errors as ``feed(_:_:)``.
    public mutating func feed<Bytes: Collection>(_ bytes: Bytes) throws -> [Output] where Bytes.Element == UInt8 {
        var out: [Output] = []
        let done: Void? = try bytes.withContiguousStorageIfAvailable { buffer in
            try feed(UnsafeRawBufferPointer(buffer)) { out.append($0) }
        }
        if done == nil {
            try Array(bytes).withUnsafeBytes { raw in try feed(raw) { out.append($0) } }
        }
        return out
    }

    /// End of stream (WHATWG: "pending data must be discarded"): an unterminated line and an
    /// event without its blank line are dropped. The parser is then ready for a new stream
    /// (a reconnection): it accepts a BOM again and keeps ``lastEventID``.
    public mutating func finish() {
        lines.reset()
        fields.reset()
        failure = nil
    }
}

extension SSEParser {
    /// Hard bounds on what the parser buffers, so a broken or hostile server cannot make it
    /// use unbounded memory. Crossing the line or event bound throws a ``RealtimeError``
    /// (`line_too_long` or `event_too_large`) and the parser stops; it never truncates
    /// silently. An `id` above its bound is ignored instead (see ``maxIDLength``).
    public struct Limits: Sendable, Hashable {
        /// The longest line (field name, colon and value, without its line terminator), in
        /// bytes. Default: ``maxEventSize`` plus the 6 bytes of `data: `, so a line may carry
        /// a whole event (a 10 MiB `data:` line fits the default 16 MiB event), while a stream
        /// that never sends a line break is cut off there.
        public var maxLineLength: Int
        /// The largest event, in bytes of its data buffer (the `data` values joined with LF).
        /// Default 16 MiB: room for a base64 image or a large tool-call argument in an LLM
        /// response, while a server that never sends the blank line that dispatches an event
        /// is cut off.
        public var maxEventSize: Int
        /// The longest `id` value kept, in bytes. A longer one is ignored as an `id` containing
        /// NUL is (WHATWG §9.2.6): the last event ID stays what it was, and the parser counts it
        /// in its diagnostics. The id is sent back as `Last-Event-ID`, so it must
        /// stay a reasonable header value: a 1 MB id would make every reconnect request fail
        /// locally. Default 1 KiB.
        public var maxIDLength: Int

        /// `maxLineLength` nil: `maxEventSize` + 6 (saturating).
        public init(maxLineLength: Int? = nil, maxEventSize: Int = 16 << 20, maxIDLength: Int = 1024) {
            let (withPrefix, overflow) = maxEventSize.addingReportingOverflow(Self.dataPrefixLength)
            self.maxLineLength = maxLineLength ?? (overflow ? .max : withPrefix)
            self.maxEventSize = maxEventSize
            self.maxIDLength = maxIDLength
        }

        /// `data: `: what a line carrying a whole event adds to it.
        static let dataPrefixLength = 6

        /// 16 MiB events (and lines of 16 MiB + 6), 1 KiB ids.
        public static let `default` = Limits()
        /// No practical limit (`Int.max`); for trusted input such as benchmarks.
        public static let unlimited = Limits(maxLineLength: .max, maxEventSize: .max, maxIDLength: .max)
    }
}

extension SSEParser {
    /// Hard bounds on what the parser buffers, so a broken or hostile server cannot make it
    /// use unbounded memory. Crossing one throws a ``RealtimeError`` (`line_too_long` or
    /// `event_too_large`) and the parser stops; it never truncates silently.
    public struct Limits: Sendable, Hashable {
        /// The longest line (field name, colon and value, without its line terminator), in
        /// bytes. Default 8 MiB: room for a base64 image or a large tool-call argument in one
        /// `data:` line of an LLM response, yet a stream that never sends a line break is cut
        /// off after 8 MiB.
        public var maxLineLength: Int
        /// The largest event, in bytes of its data buffer (the `data` values joined with LF).
        /// Default 16 MiB: twice the longest line, so a few maximal lines fit, while a server
        /// that never sends the blank line that dispatches an event is cut off.
        public var maxEventSize: Int

        public init(maxLineLength: Int = 8 << 20, maxEventSize: Int = 16 << 20) {
            self.maxLineLength = maxLineLength
            self.maxEventSize = maxEventSize
        }

        /// 8 MiB lines, 16 MiB events.
        public static let `default` = Limits()
        /// No practical limit (`Int.max`); for trusted input such as benchmarks.
        public static let unlimited = Limits(maxLineLength: .max, maxEventSize: .max)
    }
}

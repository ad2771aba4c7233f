extension SSEParser {
    /// What the parser ignored on purpose. The WHATWG rules make these silent (the stream goes
    /// on); the counts let a caller log them or a test check them. Totals since the parser was
    /// made (``SSEParser/finish()`` keeps them).
    public struct Diagnostics: Sendable, Hashable {
        /// `id` fields ignored because they contained NUL (WHATWG §9.2.6).
        public var idsWithNUL = 0
        /// `id` fields ignored because they were longer than ``Limits/maxIDLength``.
        public var idsTooLong = 0
        /// The length in bytes of the longest `id` ignored for its length (0 when none).
        public var longestIgnoredID = 0

        public init() {}

        /// Every ignored `id`.
        public var ignoredIDs: Int { idsWithNUL + idsTooLong }
    }
}

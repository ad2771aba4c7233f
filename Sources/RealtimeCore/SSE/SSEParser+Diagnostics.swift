extension SSEParser {
    /// What the parser ignored on purpose. The WHATWG rules make these silent (the stream goes
    /// on); the counts let a caller log them or a test check them. Totals since the parser was
    /// made (``SSEParser/finish()`` keeps them).
    package struct Diagnostics: Sendable, Hashable {
        /// `id` fields ignored because they contained NUL (WHATWG §9.2.6).
        package var idsWithNUL = 0
        /// `id` fields ignored because they were longer than ``Limits/maxIDLength``.
        package var idsTooLong = 0
        /// The length in bytes of the longest `id` ignored for its length (0 when none).
        package var longestIgnoredID = 0

        package init() {}

        /// Every ignored `id`.
        package var ignoredIDs: Int { idsWithNUL + idsTooLong }
    }
}

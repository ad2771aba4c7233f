extension StringProtocol {
    /// Without the spaces and horizontal tabs at either end (HTTP's optional whitespace, RFC
    /// 9110 §5.6.3); other characters, including other Unicode spaces, stay.
    package func trimmingASCIISpaces() -> Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return s[s.endIndex...] }
        let last = s.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return s[first...last]
    }
}

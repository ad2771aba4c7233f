/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Names keep the case they were given; comparisons ignore ASCII case (RFC 9110 §5.1).
/// `description` never prints the value of a credential-bearing field (a name containing
/// `auth`, `key`, `token`, `secret`, `session`, `cookie`, `password`, `signature`,
/// `credential` or `access`, or one of `sig`, `pwd`, `pass`, `passwd`, `jwt`), so a header
/// list can be logged or put in an error without leaking secrets.
public struct HTTPHeaders: Sendable, Hashable, CustomStringConvertible, ExpressibleByDictionaryLiteral {
    /// One header line: a name and its value.
    public struct Field: Sendable, Hashable {
        /// The name as given (compared case-insensitively).
        public var name: String
        /// The value.
        public var value: String
        /// A field with this name and value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order, repeated names included.
    public private(set) var fields: [Field]

    /// No headers.
    public init() { self.fields = [] }

    /// Headers from name-value pairs, in order.
    public init(_ pairs: [(String, String)]) {
        self.fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field, or removes them when `value` is nil.
    public mutating func replaceOrAdd(name: String, value: String?) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
        if let value { fields.append(Field(name: name, value: value)) }
    }

    /// Removes every field with this name (case-insensitive).
    public mutating func remove(name: String) {
        fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
    }

    /// The first value of the field named `name`, if any.
    public subscript(name: String) -> String? {
        fields.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of the fields named `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Whether a field with this name (case-insensitive) is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Parts of a name that mark it as carrying a credential (compared ignoring ASCII case):
    /// `Authorization`, `Proxy-Authorization`, `X-Auth`, `X-Api-Key`, `Api-Key`,
    /// `Ocp-Apim-Subscription-Key`, `X-Access-Token`, `Private-Token`, `X-Amz-Security-Token`,
    /// `X-Session-Id`, `Cookie`, `Set-Cookie`, `X-Credential`, `X-Access`, `X-Signature` all
    /// contain one. Deliberately broad: a name wrongly counted as a credential is only
    /// redacted in logs and dropped on a cross-origin redirect, while a credential missed is
    /// printed or sent to another origin.
    package static let sensitiveNameParts = [
        "auth", "key", "token", "secret", "session", "cookie", "password", "signature", "credential", "access",
    ]

    /// Names that carry a credential only as a whole name (as parts they would match harmless
    /// names): the short query names `sig`, `pwd`, `pass`, `passwd`, `jwt`.
    static let sensitiveWholeNames: Set<String> = ["sig", "pwd", "pass", "passwd", "jwt"]

    /// Whether a name's value may carry a credential: the one rule for what a cross-origin
    /// redirect leaves behind (both transports, RFC 9110 §15.4) and for what is redacted in
    /// descriptions and logs (header values, and URL query and fragment values, see
    /// `URLRedaction`). True when the name contains one of `sensitiveNameParts` or is one
    /// of the short credential names (`sig`, `pwd`, `pass`, `passwd`, `jwt`), ignoring case.
    package static func isSensitive(_ name: String) -> Bool {
        let lower = name.lowercased()
        return sensitiveWholeNames.contains(lower) || sensitiveNameParts.contains { lower.contains($0) }
    }

    /// `isSensitive(_:)`, or one of the names the user marked sensitive (compared ignoring
    /// ASCII case), e.g. `TransportRequest.sensitiveHeaderNames`.
    package static func isSensitive(_ name: String, markedSensitive marked: [String]) -> Bool {
        isSensitive(name) || marked.contains { equalsIgnoringCase($0, name) }
    }

    /// `Name: value` lines with sensitive values replaced by `<redacted>`.
    public var description: String {
        fields.map { "\($0.name): \(Self.isSensitive($0.name) ? "<redacted>" : $0.value)" }
            .joined(separator: ", ")
    }

    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            let lx = (x >= 0x41 && x <= 0x5A) ? x | 0x20 : x
            let ly = (y >= 0x41 && y <= 0x5A) ? y | 0x20 : y
            if lx != ly { return false }
        }
        return true
    }
}

/// A revision of the Model Context Protocol, named by its date.
///
/// Two wire generations: 2025-03-26 to 2025-11-25 open a session with `initialize` and keep
/// it with `Mcp-Session-Id`; 2026-07-28 has no handshake and no session: every POST carries
/// one request with its protocol version in `params._meta`.
public struct MCPRevision: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The revision's date, as the protocol writes it (`2025-11-25`).
    public let rawValue: String

    /// The revision named `rawValue` (a date such as `2025-11-25`).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The HTTP+SSE transport's revision (a GET stream and a POST endpoint): spoken when a
    /// server refuses Streamable HTTP (see ``MCPClient/RevisionChoice/negotiate``).
    public static let v2024_11_05 = MCPRevision("2024-11-05")
    /// The first Streamable HTTP revision (sessions opened with `initialize`).
    public static let v2025_03_26 = MCPRevision("2025-03-26")
    /// A handshake revision: structured tool output, elicitation, the `MCP-Protocol-Version` header.
    public static let v2025_06_18 = MCPRevision("2025-06-18")
    /// The newest handshake revision, the one `initialize` offers.
    public static let v2025_11_25 = MCPRevision("2025-11-25")
    /// The stateless revision: no handshake, no session, one request per POST.
    public static let v2026_07_28 = MCPRevision("2026-07-28")

    /// The newest handshake revision: what `initialize` offers.
    package static let latestSession = v2025_11_25
    /// The newest stateless revision.
    package static let latestStateless = v2026_07_28

    /// True for the stateless generation (2026-07-28 and later).
    package var isStateless: Bool { self >= .v2026_07_28 }

    public var description: String { rawValue }

    // Revisions are dates written YYYY-MM-DD, so text order is date order.
    public static func < (a: MCPRevision, b: MCPRevision) -> Bool { a.rawValue < b.rawValue }
}

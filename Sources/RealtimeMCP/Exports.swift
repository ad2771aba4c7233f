#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
// `import RealtimeMCP` brings the client it streams through, as `import Realtime` would.
@_exported import Realtime
@_exported import RealtimeJSON

extension JSONValue {
    /// Parses one JSON text (RFC 8259) in one pass, in time linear in its length. Throws
    /// ``MCPError`` code `invalidMessage` when it is not UTF-8, not one JSON value, or nests
    /// deeper than 512 levels of arrays and objects (as `JSONDecoder`).
    public init(json data: Data) throws(MCPError) {
        guard let text = String(validating: data, as: UTF8.self) else {
            throw MCPError(.invalidMessage, detail: "not UTF-8")
        }
        guard let value = JSONValue.parse(text, maxDepth: Self.maxDepth) else {
            throw MCPError(.invalidMessage, detail: "not JSON")
        }
        self = value
    }
}

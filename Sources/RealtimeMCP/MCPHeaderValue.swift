#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Header values that mirror a body field (`Mcp-Name`): printable ASCII without edge
/// whitespace goes as is; anything else as `=?base64?<UTF-8 in base64>?=` (2026-07-28
/// transport, "Standard Headers"), so no control character or non-ASCII byte reaches a header.
enum MCPHeaderValue {
    static func encode(_ value: String) -> String {
        let printable = value.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value <= 0x7E }
        let trimmed = value.first != " " && value.last != " "
        let looksEncoded = value.hasPrefix("=?base64?") && value.hasSuffix("?=")
        if printable, trimmed, !looksEncoded { return value }
        return "=?base64?" + Data(value.utf8).base64EncodedString() + "?="
    }
}

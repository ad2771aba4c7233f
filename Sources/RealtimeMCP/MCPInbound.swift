#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One message from the server, parsed once where it arrived: its bytes (what `receive()`
/// hands to a JSON-RPC layer of its own) and its value (what ``MCPClient`` reads).
struct MCPInbound: Sendable, Equatable {
    let data: Data
    let value: JSONValue

    /// A message the transport made or already parsed.
    init(_ value: JSONValue, data: Data? = nil) {
        self.value = value
        self.data = data ?? value.jsonData
    }

    /// Parses `data`; nil when it is not JSON.
    init?(parsing data: Data) {
        guard let value = try? JSONValue(json: data) else { return nil }
        self.init(value, data: data)
    }
}

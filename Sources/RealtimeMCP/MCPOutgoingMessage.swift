#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the transport needs to know of a JSON-RPC message it is asked to send.
struct MCPOutgoingMessage {
    enum Kind: Equatable {
        case request
        case notification
        case response
    }

    let kind: Kind
    var value: [String: JSONValue]
    let id: JSONValue?
    let method: String?

    /// Methods whose target is mirrored as `Mcp-Name` (2026-07-28 transport, "Standard Headers").
    static let nameParameters = ["tools/call": "name", "prompts/get": "name", "resources/read": "uri"]

    init(_ data: Data) throws(MCPError) {
        guard case .object(let object) = try JSONValue(json: data) else {
            throw MCPError(.invalidMessage, detail: "send one JSON-RPC object (batches are not part of MCP since 2025-06-18)")
        }
        value = object
        id = object["id"]
        method = object["method"]?.stringValue
        switch (method, id) {
        case (.some, .some): kind = .request
        case (.some, nil): kind = .notification
        case (nil, .some) where object["result"] != nil || object["error"] != nil: kind = .response
        default: throw MCPError(.invalidMessage, detail: "neither request, notification nor response")
        }
    }

    /// The `Mcp-Name` value: the tool or prompt name, or the resource URI.
    var name: String? {
        guard let method, let key = Self.nameParameters[method] else { return nil }
        return value["params"]?[key]?.stringValue
    }

    /// The request a `notifications/cancelled` names.
    var cancelledRequestID: JSONValue? {
        method == "notifications/cancelled" ? value["params"]?["requestId"] : nil
    }

    /// The message with the 2026-07-28 per-request envelope in `params._meta` (protocol
    /// version, client capabilities, client info), keeping what the caller put there.
    func withEnvelope(revision: MCPRevision, capabilities: JSONValue, clientInfo: JSONValue) -> Data {
        var message = value
        var params = message["params"]?.objectValue ?? [:]
        var meta = params["_meta"]?.objectValue ?? [:]
        if meta[MCPEnvelope.protocolVersion] == nil { meta[MCPEnvelope.protocolVersion] = .string(revision.rawValue) }
        if meta[MCPEnvelope.clientCapabilities] == nil { meta[MCPEnvelope.clientCapabilities] = capabilities }
        if meta[MCPEnvelope.clientInfo] == nil { meta[MCPEnvelope.clientInfo] = clientInfo }
        params["_meta"] = .object(meta)
        message["params"] = .object(params)
        return JSONValue.object(message).jsonData
    }
}

/// The `_meta` keys of the 2026-07-28 per-request envelope.
enum MCPEnvelope {
    static let protocolVersion = "io.modelcontextprotocol/protocolVersion"
    static let clientCapabilities = "io.modelcontextprotocol/clientCapabilities"
    static let clientInfo = "io.modelcontextprotocol/clientInfo"
}

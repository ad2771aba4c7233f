/// A tool the server offers (`tools/list`).
public struct MCPTool: Sendable, Hashable {
    public var name: String
    public var description: String?
    /// The JSON Schema of the tool's arguments.
    public var inputSchema: MCPValue?
    /// The whole entry as the server sent it.
    public var json: MCPValue

    /// Whether the server says calling the tool again changes nothing more
    /// (`annotations.readOnlyHint` or `annotations.idempotentHint` true): the client then
    /// re-issues a call whose answer was lost (see ``MCPClient/Configuration/maxReissues``).
    public var isSafeToRepeat: Bool {
        json["annotations"]?["readOnlyHint"] == .bool(true) || json["annotations"]?["idempotentHint"] == .bool(true)
    }

    init?(_ json: MCPValue) {
        guard let name = json["name"]?.stringValue else { return nil }
        self.name = name
        self.description = json["description"]?.stringValue
        self.inputSchema = json["inputSchema"]
        self.json = json
    }
}

/// The result of `tools/call`.
public struct MCPToolResult: Sendable, Hashable {
    /// Content blocks (`{"type": "text", "text": …}` and others).
    public var content: [MCPValue]
    public var structuredContent: MCPValue?
    /// True when the tool itself failed (the call did reach it).
    public var isError: Bool
    public var json: MCPValue

    init(_ json: MCPValue) {
        content = json["content"]?.arrayValue ?? []
        structuredContent = json["structuredContent"]
        if case .bool(let b) = json["isError"] { isError = b } else { isError = false }
        self.json = json
    }

    /// The text of the text blocks, joined with newlines.
    public var text: String {
        content.compactMap { $0["type"]?.stringValue == "text" ? $0["text"]?.stringValue : nil }.joined(separator: "\n")
    }
}

/// One `notifications/progress` for a request.
public struct MCPProgress: Sendable, Hashable {
    public var progress: Double
    public var total: Double?
    public var message: String?
}

/// One page of a paginated list and the cursor of the next (nil on the last page).
public struct MCPPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var nextCursor: String?
}

/// A notification from the server.
public struct MCPNotification: Sendable, Hashable {
    public var method: String
    public var params: MCPValue?
}

/// What the server said about itself at the start (the `initialize` or `server/discover` result).
public struct MCPServerInfo: Sendable, Hashable {
    /// The revision in use.
    public var revision: MCPRevision
    public var capabilities: MCPValue
    /// `serverInfo` (handshake) or the `_meta` server info stamp (2026-07-28), when sent.
    public var serverInfo: MCPValue?
    public var instructions: String?
}

/// A tool the server offers (`tools/list`).
public struct MCPTool: Sendable, Hashable {
    /// The name to call it by (``MCPClient/callTool(_:arguments:onProgress:)``).
    public var name: String
    /// What the tool does, for a person or a model choosing it; nil when the server sent none.
    public var description: String?
    /// The JSON Schema of the tool's arguments.
    public var inputSchema: JSONValue?
    /// The whole entry as the server sent it.
    public var json: JSONValue

    /// Whether the server says calling the tool again changes nothing more
    /// (`annotations.readOnlyHint` or `annotations.idempotentHint` true): the client then
    /// re-issues a call whose answer was lost (see ``MCPClient/Configuration/maxReissues``).
    public var isSafeToRepeat: Bool {
        json["annotations"]?["readOnlyHint"] == .bool(true) || json["annotations"]?["idempotentHint"] == .bool(true)
    }

    /// The arguments the tool's schema marks `x-mcp-header` (2026-07-28, "Custom Headers"):
    /// their property path from the schema's root through `properties` only, and the header
    /// token (`Mcp-Param-<token>`). Only string, integer and boolean properties qualify, and a
    /// token must be an RFC 9110 token.
    var parameterHeaders: [MCPParameterHeader] {
        var found: [MCPParameterHeader] = []
        var stack: [([String], JSONValue)] = [([], inputSchema ?? .null)]
        while let (path, schema) = stack.popLast(), found.count < 64 {
            for (key, property) in schema["properties"]?.objectValue ?? [:] where path.count < 16 {
                let where_ = path + [key]
                if let token = property["x-mcp-header"]?.stringValue, MCPParameterHeader.isToken(token),
                    let type = property["type"]?.stringValue, ["string", "integer", "boolean"].contains(type)
                {
                    found.append(MCPParameterHeader(path: where_, token: token))
                }
                stack.append((where_, property))
            }
        }
        return found
    }

    init?(_ json: JSONValue) {
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
    public var content: [JSONValue]
    /// The result as one JSON value, when the tool declares an output schema (2025-06-18 on).
    public var structuredContent: JSONValue?
    /// True when the tool itself failed (the call did reach it).
    public var isError: Bool
    /// The whole result as the server sent it.
    public var json: JSONValue

    init(_ json: JSONValue) {
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
    /// How far the request is, in the server's units; it grows with every notification.
    public var progress: Double
    /// The total in the same units, when the server knows it.
    public var total: Double?
    /// A line for a person (`"step 2 of 3"`), when the server sent one.
    public var message: String?
}

/// One page of a paginated list and the cursor of the next (nil on the last page).
public struct MCPPage<Item: Sendable>: Sendable {
    /// The page's entries, in the server's order.
    public var items: [Item]
    /// The cursor that asks for the next page; nil on the last one.
    public var nextCursor: String?
    /// How long the page may be reused (2026-07-28 `ttlMs`; nil when the server did not
    /// say, zero when it is stale at once).
    public var ttl: Duration?
    /// Who may reuse it (`private`: this user only; `public`: a shared cache too), as the
    /// server said (`cacheScope`).
    public var cacheScope: String?

    init(items: [Item], nextCursor: String?, result: JSONValue) {
        self.items = items
        self.nextCursor = nextCursor
        if let ms = result["ttlMs"]?.numberValue, ms >= 0, ms < 1e12 { ttl = .milliseconds(Int64(ms)) }
        cacheScope = result["cacheScope"]?.stringValue
    }
}

/// A notification from the server.
public struct MCPNotification: Sendable, Hashable {
    /// The notification's method (`notifications/resources/updated`, `notifications/message`…).
    public var method: String
    /// Its parameters, as the server sent them; nil when it sent none.
    public var params: JSONValue?
}

/// What the server said about itself at the start (the `initialize` or `server/discover` result).
public struct MCPServerInfo: Sendable, Hashable {
    /// The revision in use.
    public var revision: MCPRevision
    /// The capabilities the server declared (`tools`, `resources`, `prompts`, `logging`…).
    public var capabilities: JSONValue
    /// `serverInfo` (handshake) or the `_meta` server info stamp (2026-07-28), when sent.
    public var serverInfo: JSONValue?
    /// How to use the server, for a person or a model, when the server gave any.
    public var instructions: String?
}

/// An argument a tool call mirrors into an `Mcp-Param-<token>` header.
struct MCPParameterHeader: Sendable, Hashable {
    var path: [String]
    var token: String

    /// RFC 9110 §5.6.2 token characters.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
            default: false
            }
        }
    }

    /// The header's value for `arguments`: a boolean as `true`/`false`, an integer in
    /// decimal, a string as is (base64-wrapped when it is not printable ASCII); nil when the
    /// argument is absent or of another kind.
    func value(in arguments: JSONValue?) -> String? {
        var node = arguments
        for key in path { node = node?[key] }
        switch node {
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number) where number == number.rounded() && abs(number) < 9e15: return String(Int64(number))
        case .number(let number): return String(number)
        case .string(let text): return MCPHeaderValue.encode(text)
        default: return nil
        }
    }
}

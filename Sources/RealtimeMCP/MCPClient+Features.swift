extension MCPClient {
    /// At most this many pages are followed by the `all…` methods (a server whose cursors
    /// never end cannot hold the client forever).
    package static let maxPages = 1000

    // MARK: Tools

    /// One page of `tools/list`, from `cursor` (nil: the first page). The client keeps from
    /// it which tools are safe to repeat and which arguments go into `Mcp-Param-*` headers.
    public func listTools(cursor: String? = nil) async throws -> MCPPage<MCPTool> {
        let result = try await request("tools/list", params: Self.cursorParams(cursor))
        toolsListed = true
        let tools = (result["tools"]?.arrayValue ?? []).compactMap(MCPTool.init)
        for tool in tools {
            if tool.isSafeToRepeat { repeatableTools.insert(tool.name) } else { repeatableTools.remove(tool.name) }
            await transport.useParameterHeaders(tool.parameterHeaders, for: tool.name)
        }
        return MCPPage(items: tools, nextCursor: result["nextCursor"]?.stringValue, result: result)
    }

    /// Every tool, following `nextCursor` (up to 1,000 pages); a cursor the server already
    /// gave (a loop) fails with `invalid_response`.
    ///
    /// When every page said how long it may be reused (2026-07-28 `ttlMs`), the list is
    /// reused for the shortest of those times without asking the server; a tool list change
    /// the client hears of (on ``notifications`` or a ``listen(_:)`` stream) ends that early.
    public func allTools() async throws -> [MCPTool] {
        if let cached = toolsCache, transport.clock.now() < cached.expiry { return cached.tools }
        toolsCache = nil
        let start = transport.clock.now()
        var tools: [MCPTool] = []
        var cursor: String?
        var followed: Set<String> = []
        var ttl: Duration?
        for page in 0..<Self.maxPages {
            let listed = try await listTools(cursor: cursor)
            tools += listed.items
            ttl = page == 0 ? listed.ttl : listed.ttl.flatMap { next in ttl.map { min($0, next) } }
            guard let next = listed.nextCursor else {
                if let ttl, ttl > .zero { toolsCache = (tools, start + ttl) }
                return tools
            }
            // A cursor already followed would read the same pages again, to the page bound.
            guard followed.insert(next).inserted else {
                throw MCPError(.invalidResponse, detail: "tools/list sent a cursor it had sent before")
            }
            cursor = next
        }
        throw MCPError(.invalidResponse, detail: "tools/list did not end within \(Self.maxPages) pages")
    }

    /// Calls a tool; `onProgress` gets its progress notifications. Cancel the calling task to
    /// cancel the call.
    ///
    /// On 2026-07-28 the arguments the tool's schema marks `x-mcp-header` also go as
    /// `Mcp-Param-<name>` headers (a server refuses a call without them): the client learns
    /// them from `tools/list`, which it reads once before the first call if the app has not.
    public func callTool(
        _ name: String, arguments: JSONValue = [:], onProgress: (@Sendable (MCPProgress) -> Void)? = nil
    ) async throws -> MCPToolResult {
        if server?.revision.isStateless == true, !toolsListed { _ = try? await allTools() }
        let result = try await request("tools/call", params: ["name": .string(name), "arguments": arguments], onProgress: onProgress)
        return MCPToolResult(result)
    }

    // MARK: Resources

    /// One page of `resources/list`; each entry as the server sent it (`uri`, `name`, …).
    public func listResources(cursor: String? = nil) async throws -> MCPPage<JSONValue> {
        let result = try await request("resources/list", params: Self.cursorParams(cursor))
        return MCPPage(items: result["resources"]?.arrayValue ?? [], nextCursor: result["nextCursor"]?.stringValue, result: result)
    }

    /// `resources/read`: the resource's contents (`uri`, `text` or `blob`, `mimeType`).
    public func readResource(_ uri: String) async throws -> [JSONValue] {
        try await request("resources/read", params: ["uri": .string(uri)])["contents"]?.arrayValue ?? []
    }

    /// `resources/subscribe`: the server then sends `notifications/resources/updated` for `uri`
    /// (on ``notifications``).
    public func subscribe(_ uri: String) async throws {
        _ = try await request("resources/subscribe", params: ["uri": .string(uri)])
    }

    /// `resources/unsubscribe`: the server stops sending updates for `uri`.
    public func unsubscribe(_ uri: String) async throws {
        _ = try await request("resources/unsubscribe", params: ["uri": .string(uri)])
    }

    // MARK: Prompts

    /// One page of `prompts/list`; each entry as the server sent it.
    public func listPrompts(cursor: String? = nil) async throws -> MCPPage<JSONValue> {
        let result = try await request("prompts/list", params: Self.cursorParams(cursor))
        return MCPPage(items: result["prompts"]?.arrayValue ?? [], nextCursor: result["nextCursor"]?.stringValue, result: result)
    }

    /// `prompts/get`: the prompt's `messages` (and `description`).
    public func getPrompt(_ name: String, arguments: [String: String] = [:]) async throws -> JSONValue {
        try await request("prompts/get", params: ["name": .string(name), "arguments": .object(arguments.mapValues { .string($0) })])
    }

    /// `ping`.
    public func ping() async throws {
        _ = try await request("ping")
    }

    static func cursorParams(_ cursor: String?) -> JSONValue? {
        cursor.map { ["cursor": .string($0)] }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

/// A small typed MCP client over ``MCPStreamableHTTPTransport``: negotiation, tools,
/// resources, prompts, progress, cancellation, request timeouts, server notifications and
/// server-to-client requests answered by registered handlers.
///
/// JSON-RPC errors arrive as ``MCPError`` with code ``MCPError/Code/rpc`` and the server's
/// code, message and data; a request whose stream failed gets the transport's code
/// (`stream_ended`, `invalid_response`, …).
public actor MCPClient {
    /// Answers one request of the server: given its `params` (nil when it sent none), returns
    /// the JSON-RPC `result`. For `elicitation/create` that is the user's answer, such as
    /// `["action": "accept", "content": ["name": "Ada"]]` (or `["action": "decline"]`); for
    /// `roots/list`, `["roots": [["uri": "file:///work"]]]`. Throw an ``MCPError`` with code
    /// ``MCPError/Code/rpc`` to answer with that JSON-RPC error.
    public typealias RequestHandler = @Sendable (_ params: JSONValue?) async throws -> JSONValue

    /// The transport the client speaks over (its session, streams and revision).
    public let transport: MCPStreamableHTTPTransport
    /// The settings the client was made with.
    public let configuration: Configuration
    /// What the server said at ``connect()``.
    public internal(set) var server: MCPServerInfo?
    /// The server's notifications (progress included), in order.
    public nonisolated let notifications: AsyncStream<MCPNotification>
    let notificationSink: AsyncStream<MCPNotification>.Continuation

    var pending: [JSONValue: CheckedContinuation<JSONValue, any Error>] = [:]
    /// The pending requests whose POST has started: only these may be cancelled on the server.
    var issued: Set<JSONValue> = []
    var progressHandlers: [JSONValue: @Sendable (MCPProgress) -> Void] = [:]
    var handlers: [String: RequestHandler] = [:]
    var nextID = 1
    var reader: Task<Void, Never>?
    var renewingSession = false
    /// Server requests whose handlers are running (bounded by
    /// ``Configuration/maxConcurrentServerRequests``).
    var serverRequestsInProgress = 0
    /// Tools the last `tools/list` pages marked read-only or idempotent.
    var repeatableTools: Set<String> = []
    /// The ``listen(_:)`` streams in progress, by the id of their request.
    var listeners: [JSONValue: Listener] = [:]
    /// The last ``allTools()`` list and until when the server let it be reused.
    /// The last full tool list and when it expires, on the transport's clock.
    var toolsCache: (tools: [MCPTool], expiry: Duration)?
    /// Whether `tools/list` was read (the `Mcp-Param-*` arguments are known).
    var toolsListed = false
    /// Set by ``close()``: no listen starts or starts again after it.
    var isClosed = false
    /// The last ``connect()`` failed: requests fail with `not_connected` until one succeeds
    /// (a session half made must not carry the application's requests).
    var connectFailed = false

    /// A client of the MCP endpoint at `url` (for example `https://host/mcp`), over a
    /// transport made from `configuration.transport`. Nothing is sent before ``connect()``.
    public init(url: URL, configuration: Configuration = Configuration()) {
        var transportConfiguration = configuration.transport
        transportConfiguration.clientInfo = configuration.clientInfo
        transportConfiguration.clientCapabilities = configuration.capabilities
        self.init(transport: MCPStreamableHTTPTransport(url: url, configuration: transportConfiguration), configuration: configuration)
    }

    /// A client over a transport made by the caller (its `clientInfo` and capabilities are the
    /// transport's own, not `configuration`'s). Nothing is sent before ``connect()``.
    public init(transport: MCPStreamableHTTPTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
        (notifications, notificationSink) = AsyncStream.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, configuration.notificationBuffer)))
        handlers["ping"] = { _ in [:] }
    }

    /// Answers the server's requests for `method` (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, …) with what `handler` returns; a thrown
    /// ``MCPError`` with code `rpc` becomes that JSON-RPC error, anything else -32603.
    /// `ping` is answered without a handler. Methods without one get -32601.
    public func setRequestHandler(_ method: String, _ handler: @escaping RequestHandler) {
        handlers[method] = handler
    }

    /// Connects and negotiates the revision (see ``RevisionChoice``). Its requests, and the wait
    /// for an HTTP+SSE stream's endpoint event, are bounded by ``Configuration/requestTimeout``.
    /// When it fails, requests fail with `not_connected` until a later `connect()` succeeds.
    /// After ``close()``, or once an HTTP+SSE server's stream ended, it throws `not_connected`
    /// at once: make a new client.
    @discardableResult
    public func connect() async throws -> MCPServerInfo {
        if isClosed { throw MCPError(.notConnected, detail: "the client was closed: make a new one") }
        connectFailed = false
        do {
            let info = try await negotiateSession()
            server = info
            return info
        } catch {
            connectFailed = true
            throw error
        }
    }

    /// What ``connect()`` does: the transport, the reader, then the wire generation's handshake.
    private func negotiateSession() async throws -> MCPServerInfo {
        try await transport.connect()
        if reader == nil {
            let stream = transport.inbound.channel
            reader = Task { await self.read(stream) }
        }
        let info: MCPServerInfo
        switch configuration.revision {
        case .fixed(let revision) where revision.isStateless:
            info = try await discover(revision)
        case .fixed(let revision) where revision == .v2024_11_05:
            try await transport.openLegacyStream(within: configuration.requestTimeout)
            info = try await initialize(revision)
        case .fixed(let revision):
            info = try await initialize(revision)
        case .negotiate:
            info = try await negotiate()
        }
        return info
    }

    /// Ends the session (`DELETE` in the handshake generation), fails what is pending and
    /// ends every ``listen(_:)`` sequence.
    public func close() async {
        await transport.disconnect()
        reader?.cancel()
        reader = nil
        isClosed = true
        failAll(MCPError(.notConnected, detail: "closed"))
        notificationSink.finish()
        for listener in listeners.values { listener.sink.finish() }
        listeners = [:]
    }

    private func negotiate() async throws -> MCPServerInfo {
        do {
            return try await discover(.latestStateless)
        } catch let error as MCPError {
            if error.code == .rpc, error.rpcCode == -32022 {
                let supported = error.data?["supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
                if !supported.isEmpty, !supported.contains(where: { !MCPRevision($0).isStateless }) {
                    throw MCPError(.unsupportedRevision, detail: "the server supports only \(supported.prefix(4))")
                }
            } else if error.code != .rpc, !(400..<500).contains(error.status ?? 0) {
                throw error
            }
            return try await initializeOrFallBack()
        }
    }

    /// `initialize` over Streamable HTTP; a 400, 404 or 405 to it (how a server of the
    /// 2024-11-05 HTTP+SSE transport refuses the POST) switches to that transport and
    /// initializes there.
    private func initializeOrFallBack() async throws -> MCPServerInfo {
        do {
            return try await initialize(.latestSession)
        } catch let error as MCPError where error.code == .transport && [400, 404, 405].contains(error.status ?? 0) {
            try await transport.openLegacyStream(within: configuration.requestTimeout)
            return try await initialize(.latestSession)
        }
    }

    private func discover(_ revision: MCPRevision) async throws -> MCPServerInfo {
        await transport.use(revision: revision)
        let result = try await request("server/discover", params: [:])
        let versions = result["supportedVersions"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard versions.contains(revision.rawValue) else {
            await transport.use(revision: nil)
            throw MCPError(.unsupportedRevision, detail: "server/discover offers no \(revision)", status: 400)
        }
        return MCPServerInfo(
            revision: revision, capabilities: result["capabilities"] ?? [:],
            serverInfo: result["_meta"]?["io.modelcontextprotocol/serverInfo"], instructions: result["instructions"]?.stringValue)
    }

    func initialize(_ revision: MCPRevision) async throws -> MCPServerInfo {
        await transport.use(revision: nil)
        let result = try await request(
            "initialize",
            params: ["protocolVersion": .string(revision.rawValue), "capabilities": configuration.capabilities,
                     "clientInfo": configuration.clientInfo])
        let oldest: MCPRevision = await transport.legacyEndpoint == nil ? .v2025_03_26 : .v2024_11_05
        guard let version = result["protocolVersion"]?.stringValue, MCPRevision(version) >= oldest,
            !MCPRevision(version).isStateless
        else {
            throw MCPError(.unsupportedRevision, detail: "the server answered initialize with another revision")
        }
        try await notify("notifications/initialized")
        return MCPServerInfo(
            revision: MCPRevision(version), capabilities: result["capabilities"] ?? [:],
            serverInfo: result["serverInfo"], instructions: result["instructions"]?.stringValue)
    }
}

import Realtime

/// What went wrong in an MCP exchange: a JSON-RPC error the server answered, or a failure of
/// the transport or of the server's behaviour. A struct over a private code (new codes never
/// break a `switch`); ``description`` never carries a header value or a token.
public struct MCPError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Base: String, Sendable, Hashable {
        case rpc = "rpc_error"
        case sessionExpired = "session_expired"
        case invalidMessage = "invalid_message"
        case invalidResponse = "invalid_response"
        case unknownResponseID = "unknown_response_id"
        case streamEnded = "stream_ended"
        case timeout = "request_timeout"
        case cancelled = "cancelled"
        case notConnected = "not_connected"
        case transport = "transport"
        case unsupportedRevision = "unsupported_revision"
    }

    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let base: Base
        init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// The server answered with a JSON-RPC error (``rpcCode``, ``message``, ``data``).
        public static let rpc = Code(.rpc)
        /// The server no longer knows the session (HTTP 404 with `Mcp-Session-Id`).
        public static let sessionExpired = Code(.sessionExpired)
        /// A message given to ``MCPStreamableHTTPTransport/send(_:)`` is not one JSON-RPC object.
        public static let invalidMessage = Code(.invalidMessage)
        /// The server's answer breaks the transport: a wrong `Content-Type`, a JSON-RPC batch,
        /// a body that is not JSON-RPC or not UTF-8, a session id that is not visible ASCII
        /// (``MCPError/underlying`` holds the transport's error where there is one).
        public static let invalidResponse = Code(.invalidResponse)
        /// A response on a request's stream answers another request.
        public static let unknownResponseID = Code(.unknownResponseID)
        /// The request reached the server and may or may not have run: its stream ended before
        /// the response and could not be resumed (no event id, or
        /// the resumption failed). It is sent again, as a new request, only when that is safe
        /// (``MCPClient/Configuration/maxReissues``); this error means it was not, or the
        /// re-issues were lost too.
        public static let streamEnded = Code(.streamEnded)
        /// No response within the request timeout.
        public static let timeout = Code(.timeout)
        /// The request was cancelled by the caller.
        public static let cancelled = Code(.cancelled)
        /// The transport is not connected (before `connect()`, after `disconnect()`).
        public static let notConnected = Code(.notConnected)
        /// The HTTP exchange failed (network, TLS, HTTP status): ``underlying`` says how.
        public static let transport = Code(.transport)
        /// The server and this client share no protocol revision.
        public static let unsupportedRevision = Code(.unsupportedRevision)
    }

    /// What went wrong (match it against the ``Code`` constants).
    public let code: Code
    /// A short explanation without secrets.
    public var detail: String?
    /// The JSON-RPC error code (with ``Code/rpc``), e.g. -32601 for an unknown method.
    public var rpcCode: Int?
    /// The JSON-RPC error's `message` (with ``Code/rpc``).
    public var message: String?
    /// The JSON-RPC error's `data` (with ``Code/rpc``).
    public var data: JSONValue?
    /// The HTTP status, when one was involved.
    public var status: Int?
    /// The transport's error (with ``Code/transport`` and ``Code/streamEnded``).
    public var underlying: RealtimeError?

    init(_ base: Base, detail: String? = nil, status: Int? = nil, underlying: RealtimeError? = nil) {
        self.code = Code(base)
        self.detail = detail
        self.status = status
        self.underlying = underlying
    }

    /// A JSON-RPC error from the server.
    public static func rpc(code: Int, message: String, data: JSONValue? = nil) -> MCPError {
        var e = MCPError(.rpc)
        e.rpcCode = code
        e.message = message
        e.data = data
        return e
    }

    public var description: String {
        var text = code.description
        if let rpcCode { text += " \(rpcCode)" }
        if let message { text += ": \(message.prefix(200))" }
        if let detail { text += " (\(detail))" }
        if let underlying { text += " [\(underlying.code)]" }
        return text
    }
}

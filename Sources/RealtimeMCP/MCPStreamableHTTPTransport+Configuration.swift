#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Realtime

extension MCPStreamableHTTPTransport {
    /// How the transport talks to one MCP endpoint. Defaults are documented per field.
    public struct Configuration: Sendable {
        /// The wire generation to speak. nil (default): the handshake generation, with the
        /// revision the server answers to `initialize`; ``MCPRevision/v2026_07_28`` (or later):
        /// stateless requests with the per-request envelope and `Mcp-Method`/`Mcp-Name`.
        /// ``MCPClient`` negotiates and sets it.
        public var revision: MCPRevision?
        /// Headers sent with every request (e.g. `Authorization`). Default none.
        public var headers = HTTPHeaders()
        /// Called before every HTTP request; after a 401 it is called with
        /// `credentialsRejected == true` and the request is repeated once with its headers
        /// (the server refused it, so it did not run). Default nil.
        public var headersProvider: (@Sendable (RealtimeClient.HeadersContext) async throws -> HTTPHeaders)?
        /// Trust roots, certificate verification and a client certificate for `https`
        /// endpoints. Default: the system's roots, full verification.
        public var tls: TLSConfiguration = .default
        /// DNS + TCP + TLS, per HTTP request (and the response head of a GET or DELETE, and of
        /// a POST carrying a notification or a response, which a server accepts at once).
        /// Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// How long a POST's answer may take to start (its response head) once the request is
        /// sent: a tool may run minutes before its server answers. nil (default): no bound of
        /// the transport's own for a request (``MCPClient/Configuration/requestTimeout`` bounds
        /// the request as a whole); ``connectTimeout`` for a notification or a response.
        public var responseTimeout: Duration?
        /// No byte on a stream for this long means a dead connection (SSE comments count, so
        /// a server's keep-alives hold an idle request open). Default nil: a request's stream
        /// may stay silent as long as the request runs (``MCPClient`` bounds it with its
        /// request timeout).
        public var idleTimeout: Duration?
        /// The largest JSON answer (one `application/json` body or one SSE event), in bytes.
        /// Default 16 MiB.
        public var maxMessageBytes = 16 << 20
        /// How many times a cut request stream is resumed (GET with `Last-Event-ID`) before the
        /// request fails with `stream_ended`; 0 (or less) never resumes. Default 5.
        public var maxResumeAttempts = 5
        /// Delays between resumptions when the server sent no `retry:`. Default
        /// ``BackoffPolicy/default``.
        public var backoff: BackoffPolicy = .default
        /// Whether to open the server's GET stream once a session is initialized (handshake
        /// generation; a 405 means the server offers none). Default true.
        public var opensServerStream = true
        /// What the 2026-07-28 envelope says about this client. Default `{}`.
        package var clientCapabilities: JSONValue = [:]
        /// Who this client is, for the 2026-07-28 envelope. Default swift-realtime.
        package var clientInfo: JSONValue = ["name": "swift-realtime", "version": "1.0"]
        #if os(Linux)
        /// The I/O loop the HTTP requests run on. Default `EventLoop.shared`.
        public var eventLoop: EventLoop = .shared
        #endif
        /// Where the HTTP requests' connection logs go (never with a secret). Default nil.
        public var logHandler: (any RealtimeLogHandler)?

        /// The defaults.
        public init() {}
    }
}

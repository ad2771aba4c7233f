extension MCPClient {
    /// How the client picks the wire generation.
    public enum RevisionChoice: Sendable, Hashable {
        /// Try `server/discover` at 2026-07-28; fall back to `initialize` when the server does not
        /// speak it (any JSON-RPC error but an unsupported version with no handshake revision,
        /// or an HTTP 4xx); when `initialize` gets a 400, 404 or 405, fall back to the
        /// HTTP+SSE transport of 2024-11-05 (a GET stream, then `initialize` on its endpoint).
        /// The default.
        case negotiate
        /// Speak this revision only (``MCPRevision/v2024_11_05``: the HTTP+SSE transport).
        case fixed(MCPRevision)
    }

    /// The client's settings; every one has a default, so `Configuration()` is a working client.
    public struct Configuration: Sendable {
        /// Which wire generation to speak: negotiated (the default) or one fixed revision.
        public var revision: RevisionChoice = .negotiate
        /// How long a request may wait for its response before it fails with `request_timeout`
        /// (and is cancelled on the server). Default 60 s.
        public var requestTimeout: Duration = .seconds(60)
        /// Capabilities declared to the server, sent as they are: registering a handler does not
        /// add its capability, so declare `roots`, `sampling` or `elicitation` here when you
        /// register theirs (a server asks only for what was declared). Default `{}`.
        public var capabilities: JSONValue = [:]
        /// The `clientInfo` the server is told (`name`, `version`, and whatever else the
        /// specification allows). Default `{"name": "swift-realtime", "version": "1.0"}`.
        public var clientInfo: JSONValue = ["name": "swift-realtime", "version": "1.0"]
        /// Whether a `404` for the session (`session_expired`) starts a new session with
        /// `initialize` before the failed request's error is thrown (and before the next
        /// request, when that renewal failed or the 404 answered a resumption), so the next
        /// request works. The failed request is never sent again: whether to repeat it is the
        /// caller's decision. Default false: requests fail with `session_expired`, unsent,
        /// until ``MCPClient/connect()`` starts a new session.
        public var renewsExpiredSession = false
        /// The transport's settings (headers, auth, TLS, limits, resumption).
        public var transport = MCPStreamableHTTPTransport.Configuration()
        /// Notifications kept for a slow reader of ``MCPClient/notifications``; older ones are
        /// dropped first (progress also goes to the call's own handler). Default 256.
        public var notificationBuffer = 256
        /// Requests from the server (ping, sampling, elicitation, roots…) answered at once:
        /// one more while this many handlers run is refused with JSON-RPC error -32000
        /// ("too many server requests in progress"), sent before the next message from the
        /// server is read, so a flood costs one refusal at a time and is never silently
        /// dropped. Default 16 (at least 1).
        public var maxConcurrentServerRequests = 16
        /// How many times a request whose answer was lost (`stream_ended`: the stream broke
        /// and could not be resumed) is sent again as a new request, when repeating it is
        /// safe: reads (`tools/list`, `resources/list`, `resources/templates/list`,
        /// `resources/read`, `prompts/list`, `prompts/get`, `completion/complete`, `ping`) and
        /// calls of tools whose annotations say they are read-only or idempotent (as the last
        /// `tools/list` said). Any other request fails with `stream_ended`: it reached the
        /// server and may or may not have run, so whether to repeat it is the caller's
        /// decision. Each attempt has its own ``requestTimeout``; 0.1 s, then 0.2 s… between
        /// them. Default 2.
        public var maxReissues = 2
        /// How many times one request may be answered `input_required` (2026-07-28
        /// multi-round trips) before it fails with `invalid_response`: each round runs the
        /// handlers for the server's input requests and sends the request again with their
        /// answers. Default 8.
        public var maxInputRounds = 8
        /// The W3C trace context of each request (a `traceparent` and, optionally, a
        /// `tracestate`), asked for as the request is sent and put in its `_meta`, where a
        /// server's tracing reads it to parent its spans. A `traceparent` that is not of the
        /// W3C form (`00-<32 hex>-<16 hex>-<2 hex>`, lowercase) is not sent. Default nil.
        public var traceContext: (@Sendable () -> (traceparent: String, tracestate: String?)?)?

        /// The defaults.
        public init() {}
    }
}

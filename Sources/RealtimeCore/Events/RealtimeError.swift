/// Every failure the SDK reports.
///
/// A struct over a private code enum (the shape of async-http-client's `HTTPClientError`):
/// new codes never break callers. Compare with the static members
/// (`error.code == .httpStatus`), or switch over ``failureClass`` to decide what to do.
/// ``description`` is short, stable and free of secrets: it never contains request header
/// values, bodies, URL credentials or credential-like query values (`?token=…`).
public struct RealtimeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable short identifier, e.g. `http_status`. Safe to log and to match on.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case network = "network"
            case connectTimeout = "connect_timeout"
            case idleTimeout = "idle_timeout"
            case dnsFailure = "dns_failure"
            case unreachable = "unreachable"
            case tls = "tls"
            case httpStatus = "http_status"
            case invalidContentType = "invalid_content_type"
            case invalidContentEncoding = "invalid_content_encoding"
            case redirect = "redirect"
            case handshake = "handshake"
            case proxy = "proxy"
            case protocolViolation = "protocol_violation"
            case invalidUTF8 = "invalid_utf8"
            case lineTooLong = "line_too_long"
            case eventTooLarge = "event_too_large"
            case frameTooLarge = "frame_too_large"
            case messageTooLarge = "message_too_large"
            case heartbeatTimeout = "heartbeat_timeout"
            case peerNotReading = "peer_not_reading"
            case remoteClosed = "remote_closed"
            case streamEnded = "stream_ended"
            case requestNotRepeatable = "request_not_repeatable"
            case notConnected = "not_connected"
            case sendNotSupported = "send_not_supported"
            case cancelled = "cancelled"
            case unsupportedScheme = "unsupported_scheme"
            case invalidConfiguration = "invalid_configuration"
            case retriesExhausted = "retries_exhausted"
            case circuitOpen = "circuit_open"
            case truncated = "truncated"
            case unauthorized = "unauthorized"
            case `internal` = "internal"
            case streamError = "stream_error"
            case sendExpired = "send_expired"
            case sendQueueFull = "send_queue_full"
            case openTimeout = "open_timeout"
            case openHookFailed = "open_hook_failed"
            case cursorSaveFailed = "cursor_save_failed"
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// The connection could not be made, or was reset or cut.
        public static let network = Code(.network)
        /// TCP/TLS/HTTP setup did not finish within the connect timeout.
        public static let connectTimeout = Code(.connectTimeout)
        /// No byte arrived for longer than the idle timeout.
        public static let idleTimeout = Code(.idleTimeout)
        /// The host name did not resolve.
        public static let dnsFailure = Code(.dnsFailure)
        /// No network path is available.
        public static let unreachable = Code(.unreachable)
        /// TLS handshake or certificate verification failed.
        public static let tls = Code(.tls)
        /// The server answered with a status that does not open a stream.
        public static let httpStatus = Code(.httpStatus)
        /// An SSE response whose `Content-Type` is not `text/event-stream`.
        public static let invalidContentType = Code(.invalidContentType)
        /// An SSE response body in a `Content-Encoding` the client cannot decode (or that does
        /// not decode); never parsed as text.
        public static let invalidContentEncoding = Code(.invalidContentEncoding)
        /// Too many redirects, or a redirect without a usable `Location`.
        public static let redirect = Code(.redirect)
        /// The WebSocket opening handshake was refused or invalid.
        public static let handshake = Code(.handshake)
        /// The HTTP proxy refused the request: it answered a `CONNECT` with a non-2xx status, or
        /// any request with 407 (missing or wrong proxy credentials). ``RealtimeError/status``
        /// holds the proxy's status; the class is ``FailureClass/http``, so the status decides
        /// (407 and 403 stop, 502/503/504 and 429 are retried).
        public static let proxy = Code(.proxy)
        /// The server broke the protocol (RFC 6455 framing rules, and the like).
        public static let protocolViolation = Code(.protocolViolation)
        /// A text payload or close reason was not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// An SSE line exceeded the configured limit.
        public static let lineTooLong = Code(.lineTooLong)
        /// An SSE event exceeded the configured limit.
        public static let eventTooLarge = Code(.eventTooLarge)
        /// A WebSocket frame exceeded the configured limit.
        public static let frameTooLarge = Code(.frameTooLarge)
        /// A WebSocket message (or its decompressed form) exceeded the configured limit.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// Heartbeats went unanswered beyond the configured limit.
        public static let heartbeatTimeout = Code(.heartbeatTimeout)
        /// The peer stopped reading while it kept asking for answers (a WebSocket ping flood):
        /// what the client owed it passed the outbound bound in bytes.
        public static let peerNotReading = Code(.peerNotReading)
        /// The server closed the connection (a WebSocket close frame or an unexpected EOF).
        public static let remoteClosed = Code(.remoteClosed)
        /// An SSE response ended; not a failure by itself.
        public static let streamEnded = Code(.streamEnded)
        /// A non-idempotent request was cut and is not repeated unless configured so.
        public static let requestNotRepeatable = Code(.requestNotRepeatable)
        /// `send` on a connection that is not open.
        public static let notConnected = Code(.notConnected)
        /// `send` on a transport that cannot send (SSE).
        public static let sendNotSupported = Code(.sendNotSupported)
        /// The user closed the client or cancelled the consuming task.
        public static let cancelled = Code(.cancelled)
        /// The URL's scheme selects no transport.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// The configuration cannot work (bad URL, bad TLS file, bad option).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The reconnect policy's attempt limit was reached.
        public static let retriesExhausted = Code(.retriesExhausted)
        /// Too many consecutive failures: the client waits out a cool-down.
        public static let circuitOpen = Code(.circuitOpen)
        /// A finite stream with a configured terminator (e.g. `data: [DONE]`) ended cleanly
        /// without it: what arrived was delivered, but the reply is incomplete. Not retried.
        public static let truncated = Code(.truncated)
        /// Authentication failed even after refreshing credentials.
        public static let unauthorized = Code(.unauthorized)
        /// A bug or resource failure inside the SDK.
        public static let `internal` = Code(.internal)
        /// The server reported a failure inside a stream that had opened fine: an error
        /// object of an LLM wire format (OpenAI `{"error": {...}}`, Anthropic `event: error`,
        /// e.g. `overloaded_error`). ``RealtimeError/detail`` names the error type when it is
        /// a plain identifier; ``RealtimeError/bodyExcerpt`` holds the event's data. The reply
        /// is over; what arrived before it was delivered.
        public static let streamError = Code(.streamError)
        /// A message waiting in the client's outbox (`SendPolicy.queue`) was not sent within
        /// the policy's timeout: it was dropped, never sent.
        public static let sendExpired = Code(.sendExpired)
        /// The client's outbox (`SendPolicy.queue`) has no room for the message (its message
        /// or byte bound): the message was not queued.
        public static let sendQueueFull = Code(.sendQueueFull)
        /// `RealtimeClient.waitUntilOpen(timeout:)` saw no open connection within its timeout.
        public static let openTimeout = Code(.openTimeout)
        /// The client's on-open hook (`Configuration.onOpen`) threw or did not finish within
        /// its timeout: the connection was closed and the attempt failed. ``underlying`` holds
        /// the hook's error when it threw a ``RealtimeError``. Retried with backoff.
        public static let openHookFailed = Code(.openHookFailed)
        /// The cursor store's `save` threw: the cursor was not persisted (the one in memory
        /// still is, and the next processed event saves the newest). The client goes on.
        public static let cursorSaveFailed = Code(.cursorSaveFailed)
    }

    /// What kind of failure this is; the reconnect policy decides by class (the table in the Errors article).
    public struct FailureClass: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case network, unreachable, dns, timeout, tls, http, content, `protocol`, limit,
                heartbeat, endOfStream, cancelled, configuration, auth, policy, `internal`, openHook
        }
        fileprivate let base: Base
        fileprivate init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// The connection failed or was lost (refused, reset, closed mid-stream); retried.
        public static let network = FailureClass(.network)
        /// No usable network path; retried when the path comes back.
        public static let unreachable = FailureClass(.unreachable)
        /// The host name did not resolve; retried.
        public static let dns = FailureClass(.dns)
        /// A connect, idle, heartbeat or send deadline passed; retried.
        public static let timeout = FailureClass(.timeout)
        /// A TLS failure: certificates, pinning, protocol version (permanent); a reset during the handshake is `network`.
        public static let tls = FailureClass(.tls)
        /// An HTTP refusal: a status, a redirect, a handshake or a proxy refusal; retried or not by status.
        public static let http = FailureClass(.http)
        /// The response is not a stream the client can read (content type, content encoding).
        public static let content = FailureClass(.content)
        /// The peer broke the protocol (RFC 6455, SSE framing); retried only if the policy says so.
        public static let `protocol` = FailureClass(.protocol)
        /// A size limit was crossed (line, event, frame, message).
        public static let limit = FailureClass(.limit)
        /// Heartbeats went unanswered; retried.
        public static let heartbeat = FailureClass(.heartbeat)
        /// The stream ended where the client cannot go on (a 204 answering a resume, a finite stream cut short).
        public static let endOfStream = FailureClass(.endOfStream)
        /// The application closed the client or cancelled the attempt.
        public static let cancelled = FailureClass(.cancelled)
        /// The configuration or the request is invalid; not retried.
        public static let configuration = FailureClass(.configuration)
        /// The server refused the credentials twice in a row (401 after a refresh).
        public static let auth = FailureClass(.auth)
        /// The client's policy stopped or held it: retries exhausted, a circuit breaker, a request that is not repeatable.
        public static let policy = FailureClass(.policy)
        /// A defect in the SDK; please report it.
        public static let `internal` = FailureClass(.internal)
        /// The client's on-open hook failed (``Code/openHookFailed``).
        public static let openHook = FailureClass(.openHook)
    }

    /// What failed: a stable code that programs match on.
    public let code: Code
    /// HTTP status, for `httpStatus`, `proxy` (the proxy's status) and `handshake` (when the
    /// server did not answer 101).
    public var status: Int?
    /// At most ``maxBodyExcerpt`` bytes of the response body (or the event's data), decoded
    /// leniently and cut at a Unicode scalar boundary.
    public var bodyExcerpt: String?
    /// The server's `Retry-After` when it sent one (an SSE `retry:` is the reconnection time,
    /// not part of an error).
    public var retryAfter: Duration?
    /// WebSocket close code sent or received for this failure (RFC 6455 §7.4.1).
    public var closeCode: UInt16?
    /// A short human-readable detail written by the SDK (never a request header value or a
    /// body; a wrong `Content-Type`'s media type or an undecodable content coding is named; URL
    /// credentials and credential-like query values such as `?token=…` in it are hidden).
    public var detail: String?
    /// The failure this one wraps, with its own code, status, body excerpt and
    /// `Retry-After`: set on `requestNotRepeatable`, `retriesExhausted`, `circuitOpen` and
    /// `unauthorized` when the policy stopped (or paused) because of another error, e.g. the
    /// 503 that exhausted the attempts. nil when there is no cause (a clean end). Not part of
    /// ``description``.
    public var underlying: RealtimeError? {
        get { cause?.error }
        set { cause = newValue.map(Cause.init) }
    }

    /// Indirect storage for ``underlying`` (a struct cannot contain itself).
    private indirect enum Cause: Sendable, Hashable {
        case some(RealtimeError)
        init(_ error: RealtimeError) { self = .some(error) }
        var error: RealtimeError {
            switch self {
            case .some(let e): return e
            }
        }
    }
    private var cause: Cause?

    /// The longest body excerpt an error keeps, in UTF-8 bytes.
    public static let maxBodyExcerpt = 512

    /// The longest a refused request's error body may take to arrive after its head: the
    /// status is known by then, and the excerpt only explains it. Past it the error is
    /// reported with the excerpt read so far.
    package static let bodyExcerptWait = Duration.seconds(1)

    /// An error with this code and details; for custom transports and tests.
    public init(
        _ code: Code, detail: String? = nil, status: Int? = nil, bodyExcerpt: String? = nil,
        retryAfter: Duration? = nil, closeCode: UInt16? = nil
    ) {
        self.code = code
        // A detail may quote a URL (a redirect target, a proxy, curl's message): its
        // credentials never reach a log.
        self.detail = detail.map(URLRedaction.redacted)
        self.status = status
        self.bodyExcerpt = bodyExcerpt.map { Self.excerpt($0) }
        self.retryAfter = retryAfter
        self.closeCode = closeCode
    }

    /// The class the reconnect policy decides by.
    public var failureClass: FailureClass {
        switch code.base {
        case .network, .remoteClosed, .peerNotReading: return .network
        case .connectTimeout, .idleTimeout, .sendExpired, .openTimeout: return .timeout
        case .dnsFailure: return .dns
        case .unreachable: return .unreachable
        case .tls: return .tls
        case .httpStatus, .redirect, .handshake, .proxy: return .http
        case .invalidContentType, .invalidContentEncoding: return .content
        case .protocolViolation, .invalidUTF8: return .protocol
        case .lineTooLong, .eventTooLarge, .frameTooLarge, .messageTooLarge, .sendQueueFull: return .limit
        case .heartbeatTimeout: return .heartbeat
        case .streamEnded, .truncated: return .endOfStream
        case .cancelled: return .cancelled
        case .unsupportedScheme, .invalidConfiguration, .sendNotSupported, .notConnected: return .configuration
        case .unauthorized: return .auth
        case .requestNotRepeatable, .retriesExhausted, .circuitOpen: return .policy
        case .internal, .cursorSaveFailed: return .internal
        case .openHookFailed: return .openHook
        case .streamError: return .http
        }
    }

    /// `code` plus the status or close code and the SDK's own detail. Never a secret.
    public var description: String {
        var s = code.description
        if let status { s += " (\(status))" }
        if let closeCode { s += " [close \(closeCode)]" }
        if let detail { s += ": \(URLRedaction.redacted(detail))" }
        return s
    }

    // MARK: Convenience constructors for common failures.

    /// An `http_status` error for a response with this status.
    public static func httpStatus(_ status: Int, bodyExcerpt: String? = nil, retryAfter: Duration? = nil) -> RealtimeError {
        RealtimeError(.httpStatus, status: status, bodyExcerpt: bodyExcerpt, retryAfter: retryAfter)
    }

    /// A `protocol_violation` error; a WebSocket closes with `closeCode`.
    public static func protocolViolation(_ detail: String, closeCode: UInt16 = 1002) -> RealtimeError {
        RealtimeError(.protocolViolation, detail: detail, closeCode: closeCode)
    }

    /// The error an attempt ends with when the application closes it.
    public static let cancelled = RealtimeError(.cancelled)
}

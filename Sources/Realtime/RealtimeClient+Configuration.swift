#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO

extension RealtimeClient {
    /// Everything a ``RealtimeClient`` can be told, with documented defaults. A value type:
    /// build it, then hand it to the client (later changes do not reach a running client).
    public struct Configuration: Sendable {
        // MARK: Request

        /// HTTP method for SSE (`POST` for LLM-style APIs). WebSocket always uses GET.
        /// Default `GET`.
        public var method: String = "GET"
        /// Headers sent with every attempt (after the transport's own required headers).
        /// Default none.
        public var headers: HTTPHeaders = HTTPHeaders()
        /// Request body for SSE (e.g. a JSON prompt). Default nil.
        public var body: [UInt8]?
        /// Called before every attempt; its headers replace same-named ``headers``. Use it for
        /// short-lived tokens. After a 401 it is called with `credentialsRejected == true`
        /// and the attempt is repeated at once (once per streak); nil disables refresh, so a
        /// 401 stops. Throwing a ``RealtimeError`` ends the attempt with that error (a
        /// `.network` error is retried); any other error stops the client with
        /// `unauthorized`. Default nil.
        public var headersProvider: (@Sendable (HeadersContext) async throws -> HTTPHeaders)?
        /// Whether the request may be sent again after it reached the server. nil (default)
        /// derives it from ``method``: GET, HEAD, OPTIONS, PUT, DELETE, REPORT and TRACE are
        /// repeatable (RFC 9110 §9.2.2), POST and PATCH are not, so a cut LLM reply is not
        /// re-posted. Set true when your POST is safe to repeat (e.g. it carries a resume id).
        /// A WebSocket upgrade is always a GET, so repeatable unless this says otherwise.
        public var requestIsRepeatable: Bool?
        /// WebSocket subprotocols to offer, in preference order. Default none.
        public var subprotocols: [String] = []

        // MARK: Resume

        /// The SSE resume cursor to start from (sent as `Last-Event-ID` on the first attempt).
        /// Default nil: ask ``cursorStore`` if set.
        public var lastEventID: String?
        /// Loads the cursor at start and saves it as the consumer processes events.
        /// Default nil (the cursor lives only in memory).
        public var cursorStore: CursorStore?
        /// Reads the resume cursor from a message's data. RFC 6455 has no event ids, so a
        /// resumable WebSocket protocol carries one in the payload (e.g. an `id` field of a
        /// JSON message); an SSE stream may too (a sequence number in the JSON of events
        /// that have no `id:`). Called for every message before delivery, on the
        /// connection's I/O thread (keep it quick, never block); its result becomes the
        /// message's ``Message/id`` (on SSE, in place of the `id:` field: nil leaves the SSE
        /// id) and, once the consumer has processed it, the cursor
        /// (``RealtimeClient/lastEventID``, ``cursorStore``), exactly as an SSE id. When set,
        /// a WebSocket reconnect also waits until the consumer has processed what was already
        /// received, so the cursor covers every delivered message. For a cursor that depends
        /// on earlier messages, use ``ResumePlan/cursor`` instead (setting both is an
        /// `invalidConfiguration`). Default nil (SSE ids; WebSocket messages carry none).
        public var messageID: (@Sendable (Message) -> String?)?
        /// Builds each attempt's URL from the client's URL and the committed cursor (nil until
        /// an event with an id was processed, unless ``lastEventID`` or ``cursorStore`` gave
        /// one): how a WebSocket server, which gets no `Last-Event-ID`, learns where to resume,
        /// e.g. `wss://host/feed?after=<cursor>`. Applies to SSE too (which also sends the
        /// cursor as `Last-Event-ID`). The result must keep the transport's scheme family
        /// (`ws`/`wss` or `http`/`https`), or the attempt fails with `invalidConfiguration`.
        /// Default nil (every attempt uses the client's URL).
        public var resumeURL: (@Sendable (_ url: URL, _ cursor: String?) -> URL)?
        /// How the stream resumes when its cursor comes from the data or the resume request
        /// differs from the first one (a POST's reply resumed by a GET): see ``ResumePlan``.
        /// Setting both this and ``resumeURL`` is an `invalidConfiguration` (the plan's
        /// request builds the URL). Default nil.
        public var resume: ResumePlan?
        /// Drop messages the consumer already processed, judged by id (``DuplicateFilter``:
        /// ordered ids at or below the cursor, or ids within a window of recent ones), for
        /// servers that replay on resume. Default nil: every message is delivered.
        public var duplicates: DuplicateFilter?

        /// What marks the end of a finite stream (an LLM reply's `data: [DONE]`, Anthropic's
        /// `message_stop`): the matching message is not delivered (unless the terminator was
        /// made with `delivered: true`, for an end marker that carries data), the connection is
        /// closed at once (even if the server holds it open), `.closed(clean: true,
        /// willReconnect: false)` is emitted and ``RealtimeClient/events`` finishes after what
        /// came before it. A stream that then ends cleanly without it, with a reconnect policy
        /// that does not resume clean ends (``ReconnectPolicy/finite``, ``ReconnectPolicy/never``,
        /// a non-repeatable request), emits an `.error` with code `truncated` (everything
        /// received before is still delivered). Default nil; `llm(body:headers:terminator:)`
        /// sets `.data("[DONE]")`.
        public var terminator: StreamTerminator?

        // MARK: Policies

        /// Delays between attempts. Default ``BackoffPolicy/default`` (decorrelated jitter,
        /// 1 s initial, 30 s cap, reset after 10 s of stable connection).
        public var backoff: BackoffPolicy = .default
        /// When to reconnect, by failure class. Default ``ReconnectPolicy/default``
        /// (forever, also after a clean end; use ``ReconnectPolicy/finite`` for LLM replies).
        public var reconnect: ReconnectPolicy = .default
        /// WebSocket dead-peer detection. Default ``HeartbeatPolicy/default`` (ping after
        /// 30 s of silence, dead after 2 unanswered); `heartbeat.mode = .fixedInterval` pings
        /// on a fixed schedule whatever the traffic, for servers that drop silent clients.
        /// SSE relies on ``idleTimeout``. The same setting as `webSocket.heartbeat`: setting
        /// either sets both.
        #if os(Linux)
        /// The heartbeat policy (WebSocket only; the same setting as `webSocket.heartbeat`).
        public var heartbeat: HeartbeatPolicy {
            get { webSocket.heartbeat }
            set { webSocket.heartbeat = newValue }
        }
        #else
        public var heartbeat: HeartbeatPolicy = .default
        #endif

        /// A reconnect budget shared with other clients (storm control): every reconnect books
        /// a slot in it, at or after its backoff delay, and reports the booked delay as
        /// ``ErrorEvent/retryIn``. First connections are not limited. Default nil.
        public var retryBudget: RetryBudget?

        // MARK: Connection

        /// TLS settings for `https` and `wss` (``TLSConfiguration``). Default: the system's roots, full verification.
        public var tls: TLSConfiguration = .default
        /// DNS + TCP + TLS + response head, per attempt. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// SSE: how long the server has from the request to its response head, instead of
        /// what is left of ``connectTimeout`` once connected. For servers that start their
        /// answer late (a model in a queue, a slow tool): the connection still has to come up
        /// within the connect timeout. A late head fails the attempt with `connect_timeout`
        /// "no response head within …". nil: the connect timeout covers the head. Default nil
        /// (the `llm(body:headers:terminator:)` (RealtimeLLM) presets: 600 s).
        public var responseTimeout: Duration?
        /// No byte for this long means a dead connection (comments and control frames count).
        /// nil disables. Default 300 s (as LaunchDarkly's SDKs): long enough for a feed that
        /// is quiet for minutes between events, short enough to notice a connection that died
        /// without a FIN. A server that sends heartbeat comments every N seconds can be
        /// watched closer with a few times N.
        public var idleTimeout: Duration? = .seconds(300)
        /// Redirects followed per attempt. Default 10.
        public var maxRedirects: Int = 10
        /// Header names that carry a credential beyond the built-in rule (the one that also
        /// redacts logs and descriptions: any name containing `auth`, `key`, `token`,
        /// `secret`, `session`, `cookie`, `password`, `signature`, `credential` or `access`,
        /// and `sig`, `pwd`, `pass`, `passwd`, `jwt`), compared ignoring case: never sent to
        /// another origin after a redirect, on either transport. Default none.
        public var sensitiveHeaderNames: [String] = []
        /// Whether a redirect may go from `https` to `http` (or `wss` to `ws`), sending the
        /// request in clear text. Default false: such a redirect fails with `redirect`.
        public var allowsInsecureRedirects = false

        #if os(Linux)
        /// The I/O loop the default transports run on, and whose ``networkMonitor`` the
        /// client uses by default. Default `EventLoop.shared` (one thread for the process).
        public var eventLoop: EventLoop = .shared
        /// SSE transport settings beyond the request: parser limits (16 MiB events, lines as
        /// long as an event, 1 KiB ids), strict UTF-8, proxy (`sse.proxy`: libcurl's environment rules by default), HTTP/2, TCP
        /// keep-alive and user timeout.
        /// Default `SSEOptions()`.
        public var sse = SSEOptions()
        /// WebSocket transport settings beyond the request: frame and message limits
        /// (16 MiB each; the message limit also bounds a decompressed message), close-handshake
        /// timeout (5 s), outbound queue (64 messages), permessage-deflate (offered by default;
        /// `webSocket.compression = .disabled` turns it off), proxy (`webSocket.proxy`: the same
        /// environment rules as SSE by default; HTTP `CONNECT` proxies), TCP options. Its `heartbeat` is
        /// this configuration's ``heartbeat``.
        /// Default `WebSocketOptions()`.
        public var webSocket = WebSocketOptions()
        #endif

        // MARK: Sending

        /// What ``RealtimeClient/send(_:flush:)`` does while no connection is open (WebSocket):
        /// throw `not_connected` at once (``SendPolicy/failFast``), or wait in the client's
        /// outbox and go out, in order and once, right after the next `open`
        /// (``SendPolicy/queue(maxMessages:maxBytes:timeout:)``). Default
        /// ``SendPolicy/failFast``.
        public var sendPolicy: SendPolicy = .failFast
        /// The application's handshake, run on every open connection (the first and each
        /// reconnect) once the transport is open: it sends (``OpenContext/send(_:flush:)``)
        /// and awaits the server's answers (``OpenContext/receive(where:)``), and the
        /// connection counts as ready (its `open` delivered, ``RealtimeClient/isConnected``,
        /// the outbox going out) only when it returns. Throwing or running out of
        /// ``onOpenTimeout`` fails the attempt (see ``OpenContext``). Default nil.
        public var onOpen: (@Sendable (OpenContext) async throws -> Void)?
        /// How long ``onOpen`` may run before the attempt fails with `open_hook_failed`.
        /// Default 10 s.
        public var onOpenTimeout: Duration = .seconds(10)

        // MARK: Observability

        /// Receives connection life-cycle records (attempts, opens, ends, decisions),
        /// free of secrets. Default nil (no logging).
        public var logHandler: (any RealtimeLogHandler)?
        /// Records below this level are not produced. Default `.info`.
        public var logLevel: RealtimeLogLevel = .info

        // MARK: Resilience

        /// Reachability source. While it reports `unreachable` the client makes no attempt
        /// and spends no retry (it emits one `.error` with code `unreachable`, `willRetry`
        /// true, `retryIn` nil, per outage, and waits); when the network returns it connects
        /// at once with a fresh backoff; a path change while connected makes the connection
        /// prove it is alive within ``pathChangeProbeTimeout`` (a WebSocket is pinged).
        /// Ignored for loopback hosts (`localhost`, `127.0.0.0/8`, `::1`), which need no
        /// interface. Set nil to turn reachability off: an unreachable network is then
        /// retried at backoff pace, and a dead path is noticed by the idle timeout or the
        /// heartbeat.
        ///
        /// Default on Linux: the event loop's monitor (netlink, every interface but loopback,
        /// shared by the loop's clients). Reading this property returns that monitor.
        /// Elsewhere nil in this version.
        public var networkMonitor: (any NetworkMonitor)? {
            get {
                switch monitorChoice {
                case .loopDefault:
                    #if os(Linux)
                    return eventLoop.networkMonitor
                    #else
                    return nil
                    #endif
                case .none: return nil
                case .custom(let monitor): return monitor
                }
            }
            set { monitorChoice = newValue.map { .custom($0) } ?? .none }
        }
        /// What ``networkMonitor`` was set to; the loop's monitor is made only when used.
        var monitorChoice = MonitorChoice.loopDefault
        /// Whether ``networkMonitor`` is the event loop's (never set).
        package var usesDefaultNetworkMonitor: Bool {
            if case .loopDefault = monitorChoice { return true }
            return false
        }
        enum MonitorChoice: Sendable {
            case loopDefault, none
            case custom(any NetworkMonitor)
        }
        /// After a network path change while connected, how long the connection has to show
        /// a sign of life (any byte; a WebSocket is pinged) before it is declared dead with
        /// `idleTimeout` and replaced. In effect the idle timeout, tightened to this until the
        /// next byte. A quiet SSE stream without comments more often than this is reconnected
        /// (with its cursor) after a path change. Default 5 s.
        public var pathChangeProbeTimeout: Duration = .seconds(5)

        // MARK: Buffering

        /// Events received and not yet handed to the consumer, in the client's one buffer
        /// (those the consumer took from it and has not been handed count too). When it is
        /// full the transport stops reading from the socket until the consumer is down to
        /// half of it; nothing is dropped. Default 256.
        public var eventBufferCapacity: Int = 256

        /// A configuration with every documented default.
        public init() {}

        /// ``requestIsRepeatable``, resolved for a client of `kind`: a WebSocket upgrade is a
        /// GET whatever ``method`` says.
        func resolvedRequestIsRepeatable(_ kind: TransportKind) -> Bool {
            if let requestIsRepeatable { return requestIsRepeatable }
            if kind == .webSocket { return true }
            switch method.uppercased() {
            case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "REPORT", "TRACE": return true
            default: return false
            }
        }
    }
}

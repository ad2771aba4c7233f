import Foundation
import Realtime
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE

/// The command line of `rtcat [options] URL`, parsed and checked, and turned into a
/// ``RealtimeClient/Configuration``.
///
/// Options may come before or after the URL; `--name=value` works as well as
/// `--name value`. Durations are in seconds (decimals allowed).
struct ConnectOptions {
    var url: URL
    var method: String?
    var headers = HTTPHeaders()
    /// `--sensitive-header`: names kept from other origins beyond the built-in rule.
    var sensitiveHeaders: [String] = []
    var body: [UInt8]?
    var lastEventID: String?
    /// Exit 0 after this many `event` lines.
    var count: Int?
    /// Retries after the first attempt; nil: unlimited.
    var maxRetries: Int?
    var backoffInitial: Duration?
    var backoffMax: Duration?
    /// Connected this long resets the retry count and the delays; 0: every open resets them.
    var resetAfter: Duration?
    /// 0 disables the idle timeout.
    var idleTimeout: Duration?
    var connectTimeout: Duration?
    var responseTimeout: Duration?
    var caFile: String?
    var certFile: String?
    var keyFile: String?
    var pins: [String] = []
    var insecure = false
    /// nil: the environment's proxy (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`).
    var proxy: ProxyConfiguration?
    /// Send the request again on reconnect even if it is a POST (the API says it is safe).
    var repeatRequest = false
    var duplicates: DuplicateFilter?
    // SSE only.
    /// The largest event, in bytes (a line may be as long).
    var maxEventSize: Int?
    /// Invalid UTF-8 is an error instead of U+FFFD.
    var strictUTF8 = false
    /// Print SSE comments as `{"kind": "comment", …}` lines.
    var comments = false
    /// A clean end of stream is final (no reconnect); failures are still retried.
    var finite = false
    /// One attempt only.
    var noReconnect = false
    /// No network monitor: an unreachable network is retried at backoff pace.
    var noReachability = false
    // WebSocket only.
    var send = false
    /// 0 disables the heartbeat.
    var pingInterval: Duration?
    var heartbeatMisses: Int?
    /// `--ping-mode`: when pings go out.
    var pingMode: HeartbeatPolicy.Mode?
    var protocols: [String] = []
    /// Do not offer permessage-deflate.
    var noCompression = false
    /// `--write-timeout`: 0 disables the check.
    var writeTimeout: Duration?

    /// The option list printed by `rtcat --help` and after a usage error.
    static let help = """
            options (durations in seconds):
              -X METHOD             HTTP method (SSE; default GET, POST with -d)
              -H 'Name: value'      request header (repeatable)
              --sensitive-header NAME
                                    a header that carries a credential: never sent to another
                                    origin after a redirect (repeatable; Authorization, Cookie,
                                    and names with auth, key, token, secret... always are)
              -d BODY | -d @FILE    request body (SSE)
              --last-event-id ID    resume after ID (SSE Last-Event-ID)
              --repeat-request      send a POST again on reconnect (only for APIs that say it is safe)
              --drop-duplicates numeric|recent
                                    drop replayed events: ids at or below the cursor (numeric), or
                                    among the last 1024 processed ids (recent)
              --count N             exit 0 after N events
              --max-retries N       give up after N failed retries in a row (default: never)
              --backoff-initial S   first reconnect delay (1; at least 0.1)
              --backoff-max S       longest reconnect delay, also for server hints (30)
              --reset-after S       connected S seconds = healthy: the retry count and delays start
                                    over (10; 0 = on every open, as SocketRocket managers do)
              --finite              a clean end of stream is the end (no reconnect)
              --no-reconnect        one connection attempt only
              --no-reachability     do not watch the network (by default no attempt is made while
                                    no interface is usable, and the return reconnects at once)
              --idle-timeout S      no byte for S seconds = dead connection (300; 0 = off)
              --connect-timeout S   DNS + TCP + TLS + response head (10)
              --response-timeout S  (SSE) the response head may come S seconds after the request
              --cacert FILE         trust only the CAs in this PEM file
              --cert FILE --key FILE  client certificate and key (PEM)
              --pin sha256//BASE64  pinned public key (repeatable, or ';'-separated)
              --insecure, -k        do not verify the server certificate
              --proxy URL           use this proxy (http://[user:pass@]host:port; SSE also socks5h:// …)
              --no-proxy            connect directly, ignoring http_proxy/https_proxy/all_proxy
            SSE (http://, https://):
              --max-event-size N    largest event in bytes; a line may be as long (16777216)
              --strict-utf8         invalid UTF-8 is an error (default: replaced with U+FFFD)
              --comments            print comments (`: text` lines, often heartbeats) as
                                    {"kind": "comment", "text": …}
            WebSocket (ws://, wss://):
              --send                send each line of stdin as a text message (lines read while not
                                    connected go out, in order, on the next connection); EOF closes
                                    (1000) and prints what arrives until the server's close; a line
                                    over 16 MiB is an error (exit 1); at most 4 MiB read ahead
              --ping-interval S     ping after S seconds of silence (30; 0 = off)
              --ping-mode idle|fixed  ping after silence (idle, default) or every S seconds
                                    whatever the traffic (fixed)
              --heartbeat-misses N  unanswered pings before the connection is dead (2)
              --protocol NAME       offer a subprotocol (repeatable)
              --no-compression      do not offer permessage-deflate (offered by default)
              --write-timeout S     end with peer_not_reading when the server takes no byte for
                                    S seconds while some wait to be sent (20; 0 = off)
            output: one JSON object per line: {"kind": "open"|"event"|"error"|"closed", …}
            exit: 0 after --count events or a clean end; 1 when the client gives up or --send input
                  was not sent; 2 usage error
        """

    /// Parses `arguments`; throws a ``UsageError`` with a message for the user.
    static func parse(_ arguments: [String]) throws(UsageError) -> ConnectOptions {
        var url: URL?
        var o = ConnectOptions(url: URL(string: "http://localhost")!)
        var cursor = ArgumentCursor(arguments)
        while cursor.advance() {
            if try o.parseRequestOption(&cursor) { continue }
            if try o.parseReconnectOption(&cursor) { continue }
            if try o.parseTLSOption(&cursor) { continue }
            if try o.parseSSEOption(&cursor) { continue }
            if try o.parseWebSocketOption(&cursor) { continue }
            let arg = cursor.option
            if arg.hasPrefix("-") && arg.count > 1 { throw UsageError("unknown option '\(arg)'") }
            guard url == nil else { throw UsageError("more than one URL ('\(arg)')") }
            url = try parseURL(arg)
        }
        guard let url else { throw UsageError("no URL given") }
        o.url = url
        try o.check()
        return o
    }

    private static func parseURL(_ arg: String) throws(UsageError) -> URL {
        guard let parsed = URL(string: arg), parsed.host != nil else {
            throw UsageError("'\(arg)' is not a URL")
        }
        guard RealtimeClient.transportKind(for: parsed) != nil else {
            throw UsageError("unsupported scheme '\(parsed.scheme ?? "")': use http, https, ws or wss")
        }
        return parsed
    }

    /// What is sent: method, headers, body, resume cursor, proxy.
    private mutating func parseRequestOption(_ cursor: inout ArgumentCursor) throws(UsageError) -> Bool {
        switch cursor.option {
        case "-X", "--request":
            let m = try cursor.value()
            guard !m.isEmpty, m.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw UsageError("-X needs a method name") }
            method = m
        case "-H", "--header":
            let (name, value) = try Self.headerField(try cursor.value())
            headers.add(name: name, value: value)
        case "--sensitive-header":
            let name = try cursor.value()
            guard Self.isHeaderName(name) else { throw UsageError("--sensitive-header: '\(name)' is not a valid header name") }
            sensitiveHeaders.append(name)
        case "-d", "--data":
            let data = try cursor.value()
            if data.hasPrefix("@") {
                let path = String(data.dropFirst())
                guard let contents = FileManager.default.contents(atPath: path) else {
                    throw UsageError("-d: cannot read '\(path)'")
                }
                body = Array(contents)
            } else {
                body = Array(data.utf8)
            }
        case "--last-event-id": lastEventID = try cursor.value()
        case "--proxy":
            let text = try cursor.value()
            guard !text.isEmpty else { throw UsageError("--proxy needs a URL (use --no-proxy to go direct)") }
            proxy = .url(text)
        case "--no-proxy":
            try cursor.flag()
            proxy = ProxyConfiguration.none
        case "--repeat-request":
            try cursor.flag()
            repeatRequest = true
        case "--drop-duplicates":
            switch try cursor.value() {
            case "numeric": duplicates = .numericIDs
            case "recent": duplicates = .recentIDs()
            default: throw UsageError("--drop-duplicates takes numeric or recent")
            }
        default:
            return false
        }
        return true
    }

    /// Whether `name` is a header name: a token (RFC 9110 §5.6.2).
    static func isHeaderName(_ name: String) -> Bool {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)
        return !name.isEmpty
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || tokenPunctuation.contains($0) }
    }

    /// `Name: value` from `-H`: a token name (RFC 9110 §5.6.2) and a value without line
    /// breaks. The value is never echoed (it may be a secret).
    static func headerField(_ field: String) throws(UsageError) -> (String, String) {
        guard let colon = field.firstIndex(of: ":") else { throw UsageError("-H needs 'Name: value'") }
        let name = field[..<colon].trimmingCharacters(in: .whitespaces)
        let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard isHeaderName(name) else { throw UsageError("-H: '\(name)' is not a valid header name") }
        guard !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else {
            throw UsageError("-H: the value of \(name) contains a line break")
        }
        return (name, value)
    }

    /// When and how often to connect again; timeouts; when to stop.
    private mutating func parseReconnectOption(_ cursor: inout ArgumentCursor) throws(UsageError) -> Bool {
        switch cursor.option {
        case "--count": count = try cursor.integer(minimum: 1)
        case "--max-retries": maxRetries = try cursor.integer(minimum: 0)
        case "--backoff-initial": backoffInitial = try cursor.seconds(atLeast: BackoffPolicy.minimumDelay)
        case "--backoff-max": backoffMax = try cursor.seconds(atLeast: BackoffPolicy.minimumDelay)
        case "--reset-after": resetAfter = try cursor.seconds(allowZero: true)
        case "--idle-timeout": idleTimeout = try cursor.seconds(allowZero: true)
        case "--connect-timeout": connectTimeout = try cursor.seconds(allowZero: false)
        case "--response-timeout": responseTimeout = try cursor.seconds(allowZero: false)
        case "--finite":
            try cursor.flag()
            finite = true
        case "--no-reconnect":
            try cursor.flag()
            noReconnect = true
        case "--no-reachability":
            try cursor.flag()
            noReachability = true
        default:
            return false
        }
        return true
    }

    /// Trust roots, client certificate, pins.
    private mutating func parseTLSOption(_ cursor: inout ArgumentCursor) throws(UsageError) -> Bool {
        switch cursor.option {
        case "--cacert": caFile = try cursor.value()
        case "--cert": certFile = try cursor.value()
        case "--key": keyFile = try cursor.value()
        case "--pin":
            for pin in try cursor.value().split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard pin.hasPrefix("sha256//"), pin.count > 8 else {
                    throw UsageError("--pin needs sha256//<base64 of the key's SHA-256>")
                }
                pins.append(pin)
            }
        case "--insecure", "-k":
            try cursor.flag()
            insecure = true
        default:
            return false
        }
        return true
    }

    /// SSE only: parser bounds and UTF-8 strictness.
    private mutating func parseSSEOption(_ cursor: inout ArgumentCursor) throws(UsageError) -> Bool {
        switch cursor.option {
        case "--max-event-size": maxEventSize = try cursor.integer(minimum: 1)
        case "--strict-utf8":
            try cursor.flag()
            strictUTF8 = true
        case "--comments":
            try cursor.flag()
            comments = true
        default:
            return false
        }
        return true
    }

    /// WebSocket only: sending, heartbeat, subprotocols, compression.
    private mutating func parseWebSocketOption(_ cursor: inout ArgumentCursor) throws(UsageError) -> Bool {
        switch cursor.option {
        case "--send":
            try cursor.flag()
            send = true
        case "--no-compression":
            try cursor.flag()
            noCompression = true
        case "--ping-interval": pingInterval = try cursor.seconds(allowZero: true)
        case "--write-timeout": writeTimeout = try cursor.seconds(allowZero: true)
        case "--heartbeat-misses": heartbeatMisses = try cursor.integer(minimum: 1)
        case "--ping-mode":
            switch try cursor.value() {
            case "idle": pingMode = .whenIdle
            case "fixed": pingMode = .fixedInterval
            default: throw UsageError("--ping-mode is idle or fixed")
            }
        case "--protocol":
            let name = try cursor.value()
            guard !name.isEmpty, !name.contains(","), !name.contains(" ") else {
                throw UsageError("--protocol needs one subprotocol name")
            }
            protocols.append(name)
        default:
            return false
        }
        return true
    }

    /// Combinations that cannot work, reported before any I/O.
    private func check() throws(UsageError) {
        let kind = RealtimeClient.transportKind(for: url)
        if kind == .sse {
            if send { throw UsageError("--send needs a ws:// or wss:// URL") }
            if pingInterval != nil || heartbeatMisses != nil || pingMode != nil {
                throw UsageError("--ping-interval, --ping-mode and --heartbeat-misses need a ws:// or wss:// URL (SSE uses --idle-timeout)")
            }
            if !protocols.isEmpty { throw UsageError("--protocol needs a ws:// or wss:// URL") }
            if noCompression { throw UsageError("--no-compression needs a ws:// or wss:// URL") }
            if writeTimeout != nil { throw UsageError("--write-timeout needs a ws:// or wss:// URL") }
        } else {
            if body != nil { throw UsageError("-d needs an http:// or https:// URL (WebSocket has no request body)") }
            if let method, method.uppercased() != "GET" { throw UsageError("-X \(method): a WebSocket handshake is always GET") }
            if lastEventID != nil { throw UsageError("--last-event-id needs an http:// or https:// URL") }
            if maxEventSize != nil || strictUTF8 || comments {
                throw UsageError("--max-event-size, --strict-utf8 and --comments need an http:// or https:// URL")
            }
        }
        if (certFile == nil) != (keyFile == nil) { throw UsageError("--cert and --key go together") }
        if let backoffInitial, let backoffMax, backoffMax < backoffInitial {
            throw UsageError("--backoff-max must be at least --backoff-initial")
        }
        if insecure && (caFile != nil || !pins.isEmpty) {
            throw UsageError("--insecure cannot be combined with --cacert or --pin")
        }
    }

    /// The client configuration these options describe.
    var configuration: RealtimeClient.Configuration {
        var c = RealtimeClient.Configuration()
        c.method = method ?? (body == nil ? "GET" : "POST")
        c.headers = headers
        c.sensitiveHeaderNames = sensitiveHeaders
        c.body = body
        c.lastEventID = lastEventID
        c.subprotocols = protocols
        if repeatRequest { c.requestIsRepeatable = true }
        c.duplicates = duplicates
        if let maxEventSize { c.sse.limits = SSEParser.Limits(maxEventSize: maxEventSize) }
        c.sse.strictUTF8 = strictUTF8
        c.sse.reportsComments = comments

        let initial = backoffInitial ?? BackoffPolicy.default.initial
        let maximum = backoffMax ?? max(BackoffPolicy.default.maximum, initial)
        c.backoff = BackoffPolicy(
            initial: initial, maximum: maximum, resetAfter: resetAfter ?? BackoffPolicy.default.resetAfter)
        c.reconnect = ReconnectPolicy(
            maxAttempts: maxRetries.map { $0 + 1 }, reconnectsAfterCleanEnd: !finite, isEnabled: !noReconnect)
        if let pingInterval {
            c.heartbeat.interval = pingInterval == .zero ? nil : pingInterval
        }
        if let heartbeatMisses { c.heartbeat.missedLimit = heartbeatMisses }
        if let pingMode { c.heartbeat.mode = pingMode }
        if noCompression { c.webSocket.compression = .disabled }
        if let writeTimeout { c.webSocket.writeTimeout = writeTimeout == .zero ? nil : writeTimeout }

        if noReachability { c.networkMonitor = nil }
        if let idleTimeout { c.idleTimeout = idleTimeout == .zero ? nil : idleTimeout }
        if let connectTimeout { c.connectTimeout = connectTimeout }
        if let responseTimeout { c.responseTimeout = responseTimeout }
        if let caFile { c.tls.trustRoots = .file(caFile) }
        c.tls.clientCertificateFile = certFile
        c.tls.clientKeyFile = keyFile
        c.tls.pinnedPublicKeys = pins
        if insecure { c.tls.verification = .insecureNoVerification }
        if let proxy {
            c.sse.proxy = proxy
            c.webSocket.proxy = proxy
        }
        return c
    }
}

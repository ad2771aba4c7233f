/// The `/ws` endpoint's parameters, parsed from the query (see ``TestServer/endpointReference``).
struct WebSocketEndpointOptions {
    enum Mode: String { case echo, send, close }

    /// Frames that break RFC 6455 on purpose, one per `violation=` value.
    enum Violation: String {
        /// A masked server frame (§5.1).
        case masked
        /// RSV2 set without an extension (§5.2).
        case rsv
        /// A text message that is not UTF-8 (§8.1).
        case utf8
        /// Reserved opcode 0x3 (§5.2).
        case opcode
        /// A ping with a 126-byte payload (§5.5).
        case controlSize = "control_size"
        /// A ping without FIN (§5.5).
        case fragmentedControl = "fragmented_control"
        /// A close frame with code 1005, which must never be sent (§7.4.1).
        case closeCode = "close_code"
    }

    var mode = Mode.echo
    var count = 10
    var intervalMilliseconds = 0
    var binary = false
    /// Pad each sent message to this many bytes (nil: just `message K`).
    var size: Int?
    /// Send each message in fragments of this many bytes (nil: one frame).
    var fragment: Int?
    var pingMilliseconds: Int?
    var ignorePings = false
    /// Application-level heartbeat: send `heartbeatText` as a text message every N ms.
    var heartbeatMilliseconds: Int?
    var heartbeatText = "ping"
    /// In echo mode, answer a text message equal to `replyTo` with `reply` instead of the echo.
    var replyTo: String?
    var reply = "pong"
    /// In echo mode, wait this long before each echo (so echoes are still on their way when
    /// the client closes; the close is answered after them).
    var echoDelayMilliseconds = 0
    var closeCode: UInt16?
    var reason = ""
    /// How long to wait for the client's answer to the server's close, milliseconds.
    var closeTimeoutMilliseconds = 5_000
    var subprotocol: String?
    var refuse: Int?
    var badAccept = false
    var stall = false
    /// Complete the upgrade, then read nothing (the client's writes stall).
    var noRead = false
    var dropMidFrame = false
    /// Drop the connection after this many bytes of server frames (nil: never).
    var cut: Int?
    var reset = false
    var dripMilliseconds: Int?
    var violation: Violation?

    init(query: [String: String]) {
        func int(_ name: String) -> Int? { query[name].flatMap { Int($0) } }
        func flag(_ name: String) -> Bool { query[name].map { $0 != "0" && $0 != "false" } ?? false }
        mode = query["mode"].flatMap(Mode.init(rawValue:)) ?? .echo
        count = max(0, int("count") ?? count)
        intervalMilliseconds = max(0, int("interval_ms") ?? 0)
        binary = flag("binary")
        size = int("size").flatMap { $0 > 0 ? $0 : nil }
        fragment = int("fragment").flatMap { $0 > 0 ? $0 : nil }
        pingMilliseconds = int("ping_ms").flatMap { $0 > 0 ? $0 : nil }
        ignorePings = flag("ignore_pings")
        heartbeatMilliseconds = int("heartbeat_ms").flatMap { $0 > 0 ? $0 : nil }
        heartbeatText = query["heartbeat"] ?? heartbeatText
        replyTo = query["reply_to"]
        reply = query["reply"] ?? reply
        echoDelayMilliseconds = max(0, int("echo_delay_ms") ?? 0)
        closeCode = query["close"].flatMap { UInt16($0) }
        reason = query["reason"] ?? ""
        closeTimeoutMilliseconds = max(0, int("close_timeout_ms") ?? closeTimeoutMilliseconds)
        subprotocol = query["protocol"]
        refuse = int("refuse")
        badAccept = flag("bad_accept")
        stall = flag("stall")
        noRead = flag("no_read")
        dropMidFrame = flag("drop_mid_frame")
        cut = int("cut").map { max(0, $0) }
        reset = flag("reset")
        dripMilliseconds = int("drip_ms") ?? (flag("drip") ? 0 : nil)
        violation = query["violation"].flatMap(Violation.init(rawValue:))
    }
}

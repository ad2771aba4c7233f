/// Dead-peer detection, and a heartbeat the server can see: pings (or application
/// heartbeats) on a schedule, and the connection declared dead after too many unanswered.
///
/// Any inbound traffic (a message, a pong, a ping from the server) proves the peer alive and
/// restarts the count of unanswered pings. With interval `I` and limit `N`:
/// - ``Mode/whenIdle`` (default): a ping goes out after `I` of inbound silence, another
///   every `I` while unanswered; the connection is declared dead `I × (N + 1)` after the
///   last inbound byte (defaults: pings at 30 s and 60 s of silence, dead at 90 s). A
///   server that talks more often than every `I` never receives a ping. The answer to a
///   ping (the first traffic after it) does not restart the interval: the next ping goes out
///   `I` after the previous one, so when that answer is the last byte the peer sent, it is
///   declared dead `I × (N + 1)` less that ping's round trip after it.
/// - ``Mode/fixedInterval``: a ping goes out every `I` from the open, whatever the inbound
///   traffic (for servers and proxies that drop clients that never send). The connection is
///   declared dead at the `(N + 1)`-th tick after the last inbound byte: between `I × N` and
///   `I × (N + 1)` after it, depending on where it fell between two ticks.
///
/// Driven by `HeartbeatStateMachine` from the transport's event-loop timers.
public struct HeartbeatPolicy: Sendable {
    /// What a ping is.
    public enum Kind: Sendable {
        /// WebSocket ping control frames (RFC 6455 §5.5.2) with this payload (≤ 125 bytes);
        /// the server's pong (§5.5.3) is the reply.
        case ping(payload: [UInt8])
        /// An application-level heartbeat in ordinary messages (``ApplicationHeartbeat``:
        /// a fixed text and its reply, or predicates of your own).
        case application(ApplicationHeartbeat)
    }

    /// When pings go out.
    public enum Mode: Sendable, Hashable {
        /// After `interval` of inbound silence, then every `interval` while unanswered.
        case whenIdle
        /// Every `interval` from the open, whatever the inbound traffic.
        case fixedInterval
    }

    /// Silence before a ping and between unanswered pings (``Mode/whenIdle``), or the
    /// period of pings (``Mode/fixedInterval``); nil disables the heartbeat. Default 30 s.
    public var interval: Duration?
    /// When pings go out. Default ``Mode/whenIdle``.
    public var mode: Mode
    /// Unanswered pings tolerated; the next interval of silence declares the connection dead
    /// (error `heartbeatTimeout`, then a reconnect per policy). Default 2, at least 1.
    public var missedLimit: Int
    /// Ping frames (default) or application messages.
    public var kind: Kind

    public init(interval: Duration? = .seconds(30), missedLimit: Int = 2, kind: Kind = .ping(payload: []), mode: Mode = .whenIdle) {
        precondition(missedLimit >= 1, "HeartbeatPolicy.missedLimit must be >= 1")
        precondition(interval.map { $0 > .zero } ?? true, "HeartbeatPolicy.interval must be positive")
        if case .ping(let payload) = kind {
            precondition(payload.count <= 125, "a ping payload is at most 125 bytes (RFC 6455 §5.5)")
        }
        self.interval = interval
        self.missedLimit = missedLimit
        self.kind = kind
        self.mode = mode
    }

    /// Ping frames every 30 s of silence; dead after 2 unanswered (90 s of silence).
    public static let `default` = HeartbeatPolicy()
    /// No heartbeat (the transport's idle timeout, if any, still applies).
    public static let disabled = HeartbeatPolicy(interval: nil)

    /// Ping frames after `interval` of silence (or every `interval` with
    /// ``Mode/fixedInterval``); dead after `missedLimit` unanswered.
    public static func ping(
        every interval: Duration, missedLimit: Int = 2, payload: [UInt8] = [], mode: Mode = .whenIdle
    ) -> HeartbeatPolicy {
        HeartbeatPolicy(interval: interval, missedLimit: missedLimit, kind: .ping(payload: payload), mode: mode)
    }

    /// An application-level heartbeat after `interval` of silence (or every `interval` with
    /// ``Mode/fixedInterval``, what a server that expects pings on a schedule wants: in the
    /// default ``Mode/whenIdle`` a feed that talks more often than `interval` never gets
    /// one). Build `heartbeat` with ``ApplicationHeartbeat/text(ping:pong:answersServerPings:)``
    /// or, for replies of your own shape, ``ApplicationHeartbeat/init(payload:isReply:responder:)``:
    ///
    /// ```swift
    /// let policy = HeartbeatPolicy.application(
    ///     every: .seconds(20), mode: .fixedInterval,
    ///     .text(ping: #"{"op":"ping"}"#, pong: #"{"op":"pong"}"#))
    /// ```
    public static func application(
        every interval: Duration, missedLimit: Int = 2, mode: Mode = .whenIdle, _ heartbeat: ApplicationHeartbeat
    ) -> HeartbeatPolicy {
        HeartbeatPolicy(interval: interval, missedLimit: missedLimit, kind: .application(heartbeat), mode: mode)
    }

    public var isEnabled: Bool { interval != nil }
}

/// Dead-peer detection, and a heartbeat the server can see: pings (or application
/// heartbeats) on a schedule, and the connection declared dead after too many unanswered; or,
/// for protocols whose server drives the heartbeat, answers to the server's pings and a bound
/// on its silence.
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
/// - ``Mode/responderOnly`` (``responder(deadAfter:answering:)``): no ping goes out; the
///   server's pings are answered (ping frames always, RFC 6455 §5.5.2; application pings by
///   the ``ApplicationHeartbeat/responder``), and the connection is declared dead `I` after
///   the last inbound byte. `N` plays no part.
///
/// Whatever the mode, an ``ApplicationHeartbeat``'s traffic is consumed by the transport,
/// never delivered: the server's replies to our pings, and the server's pings the responder
/// answers.
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
        /// Never: the server pings and the client answers (Engine.IO v4, servers that send
        /// `{"type":"ping"}` and expect `{"type":"pong"}`). The connection is declared dead
        /// after `interval` without inbound traffic; a nil `interval` never declares it dead
        /// (the request's idle timeout, when set, still ends a silent connection, with
        /// `idle_timeout`). ``missedLimit`` plays no part.
        case responderOnly
    }

    /// Silence before a ping and between unanswered pings (``Mode/whenIdle``), the period of
    /// pings (``Mode/fixedInterval``), or the silence that declares the connection dead
    /// (``Mode/responderOnly``). Nil stops the timer: no ping goes out and the heartbeat never
    /// declares the connection dead, though an application heartbeat's responder still
    /// answers the server's pings. Default 30 s.
    public var interval: Duration?
    /// When pings go out. Default ``Mode/whenIdle``.
    public var mode: Mode
    /// Unanswered pings tolerated; the next interval of silence declares the connection dead
    /// (error `heartbeatTimeout`, then a reconnect per policy). Default 2, at least 1.
    public var missedLimit: Int
    /// Ping frames (default) or application messages.
    public var kind: Kind

    /// A ping payload is at most 125 bytes (RFC 6455 §5.5); ``Mode/responderOnly`` with an
    /// application heartbeat needs its ``ApplicationHeartbeat/responder`` (without it nothing
    /// would be answered). Either mistake stops the program.
    public init(interval: Duration? = .seconds(30), missedLimit: Int = 2, kind: Kind = .ping(payload: []), mode: Mode = .whenIdle) {
        precondition(missedLimit >= 1, "HeartbeatPolicy.missedLimit must be >= 1")
        precondition(interval.map { $0 > .zero } ?? true, "HeartbeatPolicy.interval must be positive")
        switch kind {
        case .ping(let payload):
            precondition(payload.count <= 125, "a ping payload is at most 125 bytes (RFC 6455 §5.5)")
        case .application(let heartbeat):
            precondition(
                mode != .responderOnly || heartbeat.responder != nil,
                "HeartbeatPolicy.Mode.responderOnly needs an ApplicationHeartbeat with a responder")
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

    /// Sends no ping of its own and answers the server's (``Mode/responderOnly``): ping frames
    /// always (RFC 6455 §5.5.2), application pings with `heartbeat`'s responder when given (its
    /// ``ApplicationHeartbeat/payload`` is never sent). The connection is declared dead
    /// (`heartbeatTimeout`) after `silence` without inbound traffic, a server that stopped
    /// pinging; nil leaves that to the request's idle timeout (`idle_timeout`), if any.
    ///
    /// Engine.IO v4, whose server sends `2` every `pingInterval` and drops a client that does
    /// not answer `3` within `pingTimeout` (both from its open packet), and which a client
    /// should consider gone after `pingInterval + pingTimeout` without a ping:
    ///
    /// ```swift
    /// let policy = HeartbeatPolicy.responder(
    ///     deadAfter: .milliseconds(25_000 + 20_000),
    ///     answering: .text(ping: "2", pong: "3", answersServerPings: true))
    /// ```
    public static func responder(deadAfter silence: Duration?, answering heartbeat: ApplicationHeartbeat? = nil) -> HeartbeatPolicy {
        HeartbeatPolicy(
            interval: silence, missedLimit: 1, kind: heartbeat.map { .application($0) } ?? .ping(payload: []),
            mode: .responderOnly)
    }

    /// True when the heartbeat runs a timer (``interval`` is set): pings, or the silence that
    /// declares the connection dead.
    public var isEnabled: Bool { interval != nil }
}

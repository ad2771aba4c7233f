/// Dead-peer detection for a connection that may be silent: send a ping after a period
/// without inbound traffic, and declare the connection dead after too many unanswered pings.
///
/// Any inbound traffic (a message, a pong, a ping from the server) proves the peer alive and
/// restarts the count. With interval `I` and limit `N`, a ping goes out after `I` of silence,
/// another every `I` while unanswered, and the connection is declared dead after
/// `I × (N + 1)` of silence (defaults: pings at 30 s and 60 s, dead at 90 s).
///
/// Driven by ``HeartbeatStateMachine`` from the transport's event-loop timers.
public struct HeartbeatPolicy: Sendable {
    /// What a ping is.
    public enum Kind: Sendable {
        /// WebSocket ping control frames (RFC 6455 §5.5.2) with this payload (≤ 125 bytes);
        /// the server's pong (§5.5.3) is the reply.
        case ping(payload: [UInt8])
        /// An application-level heartbeat in ordinary messages.
        case application(ApplicationHeartbeat)
    }

    /// Silence before a ping, and between unanswered pings; nil disables the heartbeat.
    /// Default 30 s.
    public var interval: Duration?
    /// Unanswered pings tolerated; the next interval of silence declares the connection dead
    /// (error `heartbeatTimeout`, then a reconnect per policy). Default 2, at least 1.
    public var missedLimit: Int
    /// Ping frames (default) or application messages.
    public var kind: Kind

    public init(interval: Duration? = .seconds(30), missedLimit: Int = 2, kind: Kind = .ping(payload: [])) {
        precondition(missedLimit >= 1, "HeartbeatPolicy.missedLimit must be >= 1")
        precondition(interval.map { $0 > .zero } ?? true, "HeartbeatPolicy.interval must be positive")
        if case .ping(let payload) = kind {
            precondition(payload.count <= 125, "a ping payload is at most 125 bytes (RFC 6455 §5.5)")
        }
        self.interval = interval
        self.missedLimit = missedLimit
        self.kind = kind
    }

    /// Ping frames every 30 s of silence; dead after 2 unanswered (90 s of silence).
    public static let `default` = HeartbeatPolicy()
    /// No heartbeat (the transport's idle timeout, if any, still applies).
    public static let disabled = HeartbeatPolicy(interval: nil)

    /// Ping frames after `interval` of silence; dead after `missedLimit` unanswered.
    public static func ping(every interval: Duration, missedLimit: Int = 2, payload: [UInt8] = []) -> HeartbeatPolicy {
        HeartbeatPolicy(interval: interval, missedLimit: missedLimit, kind: .ping(payload: payload))
    }

    /// An application-level heartbeat after `interval` of silence.
    public static func application(
        every interval: Duration, missedLimit: Int = 2, _ heartbeat: ApplicationHeartbeat
    ) -> HeartbeatPolicy {
        HeartbeatPolicy(interval: interval, missedLimit: missedLimit, kind: .application(heartbeat))
    }

    public var isEnabled: Bool { interval != nil }
}

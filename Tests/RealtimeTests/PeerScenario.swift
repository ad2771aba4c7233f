#if os(Linux)
/// What the server (or the embedded peer) does for one attempt.
enum PeerScenario: Sendable, Equatable {
    /// `count` messages, then an orderly end (SSE: the body ends; WebSocket: close 1000).
    case finite(Int, size: Int? = nil)
    /// `count` messages, then the connection stays open; pings and a close are answered.
    case held(Int)
    /// One message, then the peer reads nothing and answers no close frame.
    case deaf
    /// The response head (or the 101) arrives, then nothing, and nothing is read.
    case stalled
    /// The request is read and never answered.
    case silent
    /// `whole` messages of 100 bytes, then the connection drops halfway through the next one.
    case cut(after: Int, reset: Bool)
    /// The request is refused with this status.
    case refused(Int)
    /// 401 unless the request carries `Authorization: Bearer <token>`.
    case authorized(String)
    /// Embedded only: TCP never comes up (loopback: a ``SaturatedListener``).
    case unreachable
    /// Embedded only: the connection is refused (loopback: a ``ClosedPort``).
    case connectionRefused
}
#endif

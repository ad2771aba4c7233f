/// What `RealtimeClient.send` does while no connection is open (before the first `open`,
/// during a reconnect, while waiting for the network or suspended).
///
/// - ``failFast`` (default): the send throws `not_connected` at once; the application decides
///   what to do with the message.
/// - ``queue(maxMessages:maxBytes:timeout:)``: the message waits in the client's outbox and
///   the send returns once it went out on the next connection. Queued messages go out in the
///   order they were queued, right after the next `open` and before any message sent after
///   that open; each goes out at most once (a message the connection did not accept before
///   it dropped waits for the next one; one it accepted is never sent again). A queued send
///   throws instead when its timeout passes (`send_expired`), when the outbox is full
///   (`send_queue_full`, at once), when its task is cancelled (`cancelled`), when the client
///   is closed (`cancelled`) or when the client gives up (the error that stopped it).
///
/// Messages sent while a connection is open go straight to it in both modes (behind any
/// queued message still going out).
public struct SendPolicy: Sendable, Hashable, CustomStringConvertible {
    package enum Base: Sendable, Hashable {
        case failFast
        case queue(maxMessages: Int, maxBytes: Int, timeout: Duration?)
    }

    package let base: Base

    /// Throw `not_connected` while no connection is open.
    public static let failFast = SendPolicy(base: .failFast)

    /// Queue while no connection is open, bounded by `maxMessages` messages and `maxBytes`
    /// payload bytes (a send that would cross either bound throws `send_queue_full` at once);
    /// a queued message whose `timeout` passes before it went out is dropped and its send
    /// throws `send_expired` (nil: no timeout, the message waits as long as the client runs).
    /// Defaults: 256 messages, 1 MiB, 30 s.
    public static func queue(maxMessages: Int = 256, maxBytes: Int = 1 << 20, timeout: Duration? = .seconds(30)) -> SendPolicy {
        precondition(maxMessages >= 1, "SendPolicy.queue needs room for at least one message")
        precondition(maxBytes >= 1, "SendPolicy.queue needs room for at least one byte")
        precondition(timeout.map { $0 > .zero } ?? true, "SendPolicy.queue timeout must be positive")
        return SendPolicy(base: .queue(maxMessages: maxMessages, maxBytes: maxBytes, timeout: timeout))
    }

    /// Whether sends wait in the outbox while no connection is open.
    package var queues: Bool {
        if case .queue = base { return true }
        return false
    }

    public var description: String {
        switch base {
        case .failFast:
            return "failFast"
        case .queue(let messages, let bytes, let timeout):
            return "queue(maxMessages: \(messages), maxBytes: \(bytes), timeout: \(timeout.map(\.millisecondsDescription) ?? "none"))"
        }
    }
}

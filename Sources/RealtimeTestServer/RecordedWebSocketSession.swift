/// What the test server saw on one WebSocket connection of the `/ws` endpoint, so tests
/// can assert what a client sent (messages, pings for heartbeat tests, its close code).
///
/// Updated live while the connection runs; read it through ``TestServer/webSocketSessions``.
package struct RecordedWebSocketSession: Sendable, Hashable {
    /// The connection's ``RecordedRequest/connectionNumber`` (matches its upgrade request).
    package var connectionNumber: Int
    /// The request target of the upgrade.
    package var target: String
    /// The subprotocol the server selected, if any.
    package var subprotocol: String?
    /// Text messages received, in order (the first 1,000).
    package var textMessages: [String] = []
    /// Binary messages received, in order (the first 1,000).
    package var binaryMessages: [[UInt8]] = []
    /// Messages received in total (text and binary).
    package var messageCount = 0
    /// Pings the client sent.
    package var pingsReceived = 0
    /// Pongs the client sent (answers to the server's pings).
    package var pongsReceived = 0
    /// Pings the server sent.
    package var pingsSent = 0
    /// Application-level heartbeat messages the server sent (`heartbeat_ms`).
    package var heartbeatsSent = 0
    /// Whether a close frame arrived from the client.
    package var receivedClose = false
    /// The code in the client's close frame (nil: none or empty payload).
    package var closeCode: UInt16?
    /// The reason in the client's close frame, if any.
    package var closeReason: String?
    /// The close code the server sent when the client broke the protocol (1002, 1007, 1009, …).
    package var protocolErrorCode: UInt16?
    /// Whether the connection has ended.
    package var ended = false

    static let recordLimit = 1000
}

/// A heartbeat carried in ordinary messages, for servers that ignore WebSocket ping frames
/// and expect, say, `{"type":"ping"}` and answer `{"type":"pong"}`.
///
/// Heartbeat traffic is never delivered to the application: a message the ``isReply``
/// validator recognises, or one the ``responder`` answers, is consumed by the transport.
public struct ApplicationHeartbeat: Sendable {
    /// What the client sends as its ping (typically `.text("…")`).
    public var payload: OutboundMessage
    /// Recognises the server's reply to ``payload``.
    public var isReply: @Sendable (Message) -> Bool
    /// For servers that send their own application pings: returns the answer to send when
    /// the message is such a ping (it is then consumed), or nil for an ordinary message.
    public var responder: (@Sendable (Message) -> OutboundMessage?)?

    public init(
        payload: OutboundMessage, isReply: @escaping @Sendable (Message) -> Bool,
        responder: (@Sendable (Message) -> OutboundMessage?)? = nil
    ) {
        self.payload = payload
        self.isReply = isReply
        self.responder = responder
    }

    /// Sends `ping` as text and recognises a text message equal to `pong`; answers a server
    /// `ping` with `pong` when `answersServerPings` is true.
    public static func text(ping: String, pong: String, answersServerPings: Bool = false) -> ApplicationHeartbeat {
        let isReply: @Sendable (Message) -> Bool = { $0.text == pong }
        var responder: (@Sendable (Message) -> OutboundMessage?)?
        if answersServerPings {
            responder = { message in message.text == ping ? OutboundMessage.text(pong) : nil }
        }
        return ApplicationHeartbeat(payload: .text(ping), isReply: isReply, responder: responder)
    }
}

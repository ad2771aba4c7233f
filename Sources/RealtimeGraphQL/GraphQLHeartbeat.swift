import Realtime

/// graphql-transport-ws's `ping` and `pong` ("Ping", "Pong") as the client's application
/// heartbeat: the transport answers the server's `ping` with `pong` as soon as it reads it
/// (also during the handshake; a `ping` behind results the application has not taken waits
/// while their buffer is full), recognises `pong` (an answer or an unsolicited one) as a sign
/// of life, and neither reaches the application.
enum GraphQLHeartbeat {
    /// Messages longer than this are not pings or pongs (those carry a small payload at most),
    /// so a large `next` costs no parse on the I/O thread.
    static let sizeLimit = 4096

    /// Our `ping` after `interval` of silence (nil: none, but the server's are still
    /// answered), the connection dead after `missedLimit` unanswered.
    static func policy(interval: Duration?, missedLimit: Int) -> HeartbeatPolicy {
        let heartbeat = ApplicationHeartbeat(
            payload: .text(GraphQLOutbound.ping),
            isReply: { matches(.pong, $0) },
            responder: { matches(.ping, $0) ? .text(GraphQLOutbound.pong) : nil })
        return HeartbeatPolicy(interval: interval, missedLimit: missedLimit, kind: .application(heartbeat), mode: .whenIdle)
    }

    static func matches(_ type: GraphQLInbound, _ message: Message) -> Bool {
        guard let text = message.text, text.utf8.count <= sizeLimit else { return false }
        let name = type == .ping ? #""ping""# : #""pong""#
        guard text.contains(name) else { return false }
        return GraphQLInbound(text: text) == type
    }
}

import RealtimeJSON

/// A heartbeat carried in ordinary messages, for servers that ignore WebSocket ping frames
/// and expect, say, `{"type":"ping"}` and answer `{"type":"pong"}`, or that send their own
/// pings and expect an answer.
///
/// Heartbeat traffic is never delivered to the application: a message the ``isReply``
/// validator recognises, or one the ``responder`` answers, is consumed by the transport. The
/// responder runs on every inbound message, those the validator accepts included (a server
/// whose heartbeat is both the sign of life and a ping to answer); its answer goes out at
/// once, unless the closing handshake has begun (RFC 6455 §5.5.1).
///
/// Two ways to build one:
/// - ``text(ping:pong:answersServerPings:)`` for a fixed text ping and its reply (compared
///   as JSON when the reply is JSON);
/// - ``init(payload:isReply:responder:)`` with predicates of your own, for replies that vary
///   (a timestamp, a sequence number) or pings the server sends:
///
/// ```swift
/// let heartbeat = ApplicationHeartbeat(
///     payload: .text(#"{"type":"ping"}"#),
///     isReply: { $0.text?.contains(#""type":"pong""#) == true },
///     responder: { $0.text == "ping" ? .text("pong") : nil })
/// ```
///
/// Put it in a ``HeartbeatPolicy`` with ``HeartbeatPolicy/application(every:missedLimit:mode:_:)``;
/// choose ``HeartbeatPolicy/Mode/fixedInterval`` when the server expects pings on a schedule
/// (in the default ``HeartbeatPolicy/Mode/whenIdle`` a feed that talks more often than the
/// interval never sends one). When only the server pings, answer with
/// ``HeartbeatPolicy/responder(deadAfter:answering:)``: nothing of ours is sent.
public struct ApplicationHeartbeat: Sendable {
    /// What the client sends as its ping (typically `.text("…")`); never sent by a
    /// ``HeartbeatPolicy/Mode/responderOnly`` policy.
    public var payload: OutboundMessage
    /// Recognises the server's reply to ``payload``.
    public var isReply: @Sendable (Message) -> Bool
    /// For servers that send their own application pings: returns the answer to send when
    /// the message is such a ping (it is then consumed), or nil for an ordinary message. Runs
    /// on the transport's I/O thread for every inbound text and binary message: keep it quick.
    public var responder: (@Sendable (Message) -> OutboundMessage?)?

    /// An application heartbeat: the payload to send, which messages are replies, and an optional responder to the server's pings.
    public init(
        payload: OutboundMessage, isReply: @escaping @Sendable (Message) -> Bool,
        responder: (@Sendable (Message) -> OutboundMessage?)? = nil
    ) {
        self.payload = payload
        self.isReply = isReply
        self.responder = responder
    }

    /// Sends `ping` as text and recognises the server's `pong`; answers a server `ping` with
    /// `pong` when `answersServerPings` is true.
    ///
    /// With `answersServerPings`, `ping` and `pong` must differ (as text, and as JSON when they
    /// are JSON): a server could not tell our answer from a ping, and two peers answering each
    /// other's heartbeat would never stop. The same text both ways stops the program.
    ///
    /// A text message is the reply when it equals `pong` byte for byte or, when `pong` is
    /// JSON, when it is the same JSON value (whitespace and the order of object members do
    /// not matter: `{"op": "pong"}` answers `{"op":"pong"}`). A server ping is recognised the
    /// same way. Only messages up to 4 × the expected text's size plus 1 KiB are parsed as
    /// JSON (a long message is not a heartbeat, and a chatty feed's large messages cost no
    /// parse). For any other rule, use ``init(payload:isReply:responder:)`` with a
    /// predicate of your own.
    public static func text(ping: String, pong: String, answersServerPings: Bool = false) -> ApplicationHeartbeat {
        let reply = TextMatcher(pong)
        let isReply: @Sendable (Message) -> Bool = { reply.matches($0) }
        var responder: (@Sendable (Message) -> OutboundMessage?)?
        if answersServerPings {
            let serverPing = TextMatcher(ping)
            precondition(
                !serverPing.matches(Message(content: .text(pong))),
                "ApplicationHeartbeat.text: ping and pong are the same message; answering server pings would echo forever")
            responder = { message in serverPing.matches(message) ? OutboundMessage.text(pong) : nil }
        }
        return ApplicationHeartbeat(payload: .text(ping), isReply: isReply, responder: responder)
    }

    /// One expected text: byte for byte, or as the same JSON value when it is JSON.
    package struct TextMatcher: Sendable {
        let expected: String
        let json: JSONValue?
        /// The longest message parsed as JSON, in bytes.
        let parseLimit: Int
        /// The deepest nesting of a reply parsed as JSON.
        package static let maxDepth = 64

        package init(_ expected: String) {
            self.expected = expected
            json = JSONValue.parse(expected, maxDepth: Self.maxDepth)
            parseLimit = expected.utf8.count * 4 + 1024
        }

        package func matches(_ message: Message) -> Bool {
            guard let text = message.text else { return false }
            if text.utf8.elementsEqual(expected.utf8) { return true }
            guard let json, text.utf8.count <= parseLimit else { return false }
            return JSONValue.parse(text, maxDepth: Self.maxDepth) == json
        }
    }
}

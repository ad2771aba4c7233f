import Realtime
@testable import RealtimeGraphQL
import Testing

/// graphql-transport-ws ping and pong as the transport's application heartbeat: our ping,
/// the server's pong recognised (with a payload too), the server's ping answered, nothing
/// else taken, and large messages not parsed; the derived configuration carries it.
@Suite(.timeLimit(.minutes(1))) struct GraphQLHeartbeatTests {
    static func message(_ text: String) -> Message { Message(content: .text(text)) }

    @Test func pingsAndPongs() throws {
        let policy = GraphQLHeartbeat.policy(interval: .seconds(15), missedLimit: 3)
        guard case .application(let heartbeat) = policy.kind else {
            Issue.record("not an application heartbeat")
            return
        }
        #expect(policy.interval == .seconds(15) && policy.missedLimit == 3 && policy.mode == .whenIdle)
        #expect(heartbeat.payload == .text(#"{"type":"ping"}"#))
        #expect(heartbeat.isReply(Self.message(#"{"type":"pong"}"#)))
        #expect(heartbeat.isReply(Self.message(#"{ "payload": {"t": 1}, "type": "pong" }"#)))
        #expect(!heartbeat.isReply(Self.message(#"{"type":"ping"}"#)))
        #expect(!heartbeat.isReply(Self.message(#"{"id":"1","type":"next","payload":{"data":{"type":"pong"}}}"#)))
        let responder = try #require(heartbeat.responder)
        #expect(responder(Self.message(#"{"type":"ping","payload":{"x":"pong"}}"#)) == .text(#"{"type":"pong"}"#))
        #expect(responder(Self.message(#"{"type":"pong"}"#)) == nil)
        #expect(responder(Self.message(#"{"id":"1","type":"next","payload":{"data":{"k":"ping"}}}"#)) == nil)
        #expect(responder(Message(content: .binary(Array(#"{"type":"ping"}"#.utf8)))) == nil)
    }

    @Test func aMessageOverTheLimitIsNotParsed() throws {
        let padded = #"{"type":"ping","payload":{"pad":""# + String(repeating: "x", count: GraphQLHeartbeat.sizeLimit) + #""}}"#
        #expect(!GraphQLHeartbeat.matches(.ping, Self.message(padded)))
    }

    @Test func theDerivedConfigurationSpeaksTheProtocol() {
        var configuration = GraphQLClient.Configuration()
        configuration.keepAlive = nil
        configuration.ackTimeout = .seconds(4)
        configuration.realtime.subprotocols = ["other"]
        configuration.realtime.sendPolicy = .queue()
        let derived = configuration.realtimeConfiguration(GraphQLSession(configuration: configuration))
        #expect(derived.subprotocols == ["graphql-transport-ws"])
        #expect(derived.onOpen != nil && derived.onOpenTimeout == .seconds(4))
        #expect(derived.heartbeat.interval == nil, "no keep-alive: the server's pings are still answered")
        guard case .application = derived.heartbeat.kind else {
            Issue.record("the heartbeat does not answer the server's pings")
            return
        }
        guard case .failFast = derived.sendPolicy else {
            Issue.record("operations would wait in the outbox")
            return
        }
    }
}

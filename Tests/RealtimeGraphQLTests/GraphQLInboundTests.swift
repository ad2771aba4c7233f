import Realtime
@testable import RealtimeGraphQL
import Testing

/// The server's messages as graphql-transport-ws defines them, and everything else refused
/// as an invalid message.
@Suite(.timeLimit(.minutes(1))) struct GraphQLInboundTests {
    @Test(arguments: [
        (#"{"type":"connection_ack"}"#, GraphQLInbound.connectionAck),
        (#"{"type":"connection_ack","payload":{"server":"x"}}"#, .connectionAck),
        (#"{ "payload": null, "type" : "ping" }"#, .ping),
        (#"{"type":"pong","payload":{"t":1}}"#, .pong),
        (#"{"id":"7","type":"next","payload":{"data":{"a":1}}}"#, .next(id: "7")),
        (#"{"type":"next","payload":{},"id":"x-1"}"#, .next(id: "x-1")),
        (#"{"id":"7","type":"complete"}"#, .complete(id: "7")),
        (#"{"id":"7","type":"error","payload":[{"message":"m","path":["a",0]}]}"#,
            .error(id: "7", errors: [GraphQLError(message: "m", path: [.field("a"), .index(0)])])),
    ])
    func messagesOfTheProtocol(text: String, expected: GraphQLInbound) {
        #expect(GraphQLInbound(text: text) == expected)
    }

    @Test(arguments: [
        "", "null", "[]", #""ping""#, #"{"type":1}"#, #"{"payload":{}}"#, #"{"type":"connection_init"}"#,
        #"{"type":"subscribe","id":"1"}"#, #"{"type":"next","payload":{}}"#, #"{"type":"next","id":"","payload":{}}"#,
        #"{"type":"next","id":1,"payload":{}}"#, #"{"type":"next","id":"1"}"#, #"{"type":"next","id":"1","payload":[]}"#,
        #"{"type":"error","id":"1","payload":{"message":"m"}}"#, #"{"type":"error","id":"1","payload":[{"path":[]}]}"#,
        #"{"type":"complete"}"#, #"{"type":"ka"}"#, #"{"type":"data","id":"1","payload":{}}"#,
    ])
    func anythingElseIsInvalid(text: String) {
        guard case .invalid = GraphQLInbound(text: text) else {
            Issue.record("\(text) was accepted")
            return
        }
    }

    @Test func aBinaryMessageIsInvalid() {
        #expect(GraphQLInbound(Message(content: .binary(Array(#"{"type":"ping"}"#.utf8)))) == .invalid(detail: "a binary message"))
    }

    @Test func theDetailOfAnUnknownTypeNamesAtMost40CharactersOfIt() {
        let type = String(repeating: "x", count: 500)
        guard case .invalid(let detail) = GraphQLInbound(text: #"{"type":"\#(type)"}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(detail.count < 100)
    }
}

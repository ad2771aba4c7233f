import Foundation
@testable import RealtimeGraphQL
import Testing

/// The client's messages, byte for byte: connection_init with and without a payload,
/// subscribe with its optional members, complete, ping and pong; payloads and variables must
/// be JSON objects.
@Suite(.timeLimit(.minutes(1))) struct GraphQLOutboundTests {
    struct Payload: Encodable, Sendable { var token = "a\"b" }

    @Test func connectionInit() throws {
        #expect(try GraphQLOutbound.connectionInit(payload: nil) == #"{"type":"connection_init"}"#)
        #expect(try GraphQLOutbound.connectionInit(payload: Payload()) == #"{"type":"connection_init","payload":{"token":"a\"b"}}"#)
    }

    @Test func subscribe() throws {
        #expect(try GraphQLOutbound.subscribe(id: "3", query: "subscription { a(x: \"é\") }", operationName: nil, variables: nil)
            == #"{"id":"3","type":"subscribe","payload":{"query":"subscription { a(x: \"é\") }"}}"#)
        #expect(try GraphQLOutbound.subscribe(id: "4", query: "q", operationName: "Op", variables: ["after": 7])
            == #"{"id":"4","type":"subscribe","payload":{"query":"q","operationName":"Op","variables":{"after":7}}}"#)
    }

    @Test func theOthers() {
        #expect(GraphQLOutbound.complete(id: "12") == #"{"id":"12","type":"complete"}"#)
        #expect(GraphQLOutbound.ping == #"{"type":"ping"}"#)
        #expect(GraphQLOutbound.pong == #"{"type":"pong"}"#)
    }

    @Test(arguments: [
        [1, 2] as any Encodable & Sendable, "text", 5, Double.nan,
    ])
    func aPayloadOrVariablesThatAreNoObjectAreRefused(value: any Encodable & Sendable) {
        #expect { try GraphQLOutbound.connectionInit(payload: value) } throws: { ($0 as? GraphQLClientError)?.code == .encodingFailed }
        #expect { try GraphQLOutbound.subscribe(id: "1", query: "q", operationName: nil, variables: value) } throws: {
            ($0 as? GraphQLClientError)?.code == .encodingFailed
        }
    }

    @Test func theMessagesAreJSONTheServerCanRead() throws {
        let text = try GraphQLOutbound.subscribe(id: "1", query: "a\nb\t\"c\"\\", operationName: "x", variables: Payload())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let payload = try #require(object["payload"] as? [String: Any])
        #expect(payload["query"] as? String == "a\nb\t\"c\"\\")
        #expect((payload["variables"] as? [String: Any])?["token"] as? String == "a\"b")
    }
}

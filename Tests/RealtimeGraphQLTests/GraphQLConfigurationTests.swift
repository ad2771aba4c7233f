import Foundation
import Realtime
import RealtimeGraphQL
import Testing

/// The documented defaults of `GraphQLClient.Configuration`, and what the client sets on the
/// connection underneath whatever it was given.
@Suite struct GraphQLConfigurationTests {
    /// Each default its doc comment and the GraphQL article name: no `connection_init`
    /// payload, a 10 s handshake, a keep-alive ping after 30 s of silence, 2 missed pings,
    /// 64 results per subscription, and the connection underneath as
    /// `RealtimeClient.Configuration()` makes it.
    @Test func everyDocumentedDefault() {
        let c = GraphQLClient.Configuration()
        let plain = RealtimeClient.Configuration()
        #expect(c.connectionPayload == nil)
        #expect(c.ackTimeout == .seconds(10))
        #expect(c.keepAlive == .seconds(30))
        #expect(c.keepAliveMissedLimit == 2)
        #expect(c.subscriptionBufferCapacity == 64)
        #expect(c.realtime.sendPolicy == plain.sendPolicy && c.realtime.backoff == plain.backoff && c.realtime.reconnect == plain.reconnect)
        #expect(c.realtime.subprotocols == plain.subprotocols && c.realtime.onOpen == nil && c.realtime.messageID == nil)
    }

    /// The client sets the subprotocol, the handshake's timeout (`ackTimeout`), the heartbeat
    /// (`keepAlive`, `keepAliveMissedLimit`), fail-fast sends and no message id on the
    /// connection underneath, replacing what the application set there.
    @Test func theClientSetsItsOwnPartsOfTheConnection() throws {
        var c = GraphQLClient.Configuration()
        c.ackTimeout = .seconds(4)
        c.keepAlive = .seconds(12)
        c.keepAliveMissedLimit = 3
        c.realtime.subprotocols = ["other"]
        c.realtime.onOpenTimeout = .seconds(99)
        c.realtime.sendPolicy = .queue()
        c.realtime.messageID = { _ in "id" }
        let client = try GraphQLClient(url: URL(string: "ws://graphql.test/graphql")!, configuration: c)
        defer { client.close() }
        let derived = client.realtime.configuration
        #expect(derived.subprotocols == [GraphQLClient.subprotocol])
        #expect(derived.onOpenTimeout == .seconds(4))
        #expect(derived.heartbeat.interval == .seconds(12) && derived.heartbeat.missedLimit == 3)
        #expect(derived.sendPolicy == .failFast)
        #expect(derived.messageID == nil && derived.onOpen != nil)
    }
}

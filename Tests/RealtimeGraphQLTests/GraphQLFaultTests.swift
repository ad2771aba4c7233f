#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// graphql-transport-ws faults at the stages the other suites leave out: a final close code
/// while the handshake waits for `connection_ack`, and a hostile `error` or `complete`.
@Suite(.timeLimit(.minutes(1))) struct GraphQLFaultTests {
    /// A close code that ends the client ends it in the handshake too: 4403 is the server
    /// refusing the `connection_init`, the typical moment for it.
    @Test(arguments: [4400, 4403, 4406, 4409] as [UInt16])
    func aFinalCloseCodeBeforeTheAckEndsTheClient(code: UInt16) async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        var results = GraphQLClientTests.ticks(server).makeAsyncIterator()
        let first = try await server.openUnacknowledged()
        first.serverClose(code, reason: "Forbidden")
        await #expect { _ = try await results.next() } throws: {
            let e = $0 as? GraphQLClientError
            return e?.code == .connectionRejected && e?.closeCode == code
        }
        #expect(server.client.realtime.statistics.attempts == 1, "no reconnect")
    }

    /// A subscription whose variables do not encode never went out: the server is not sent
    /// a `complete` for an id it never saw; what goes out next is the next subscription.
    @Test func aSubscribeThatNeverWentOutIsNotCompleted() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let bad = server.client.subscribe(GraphQLClientTests.ticks, as: Ticks.self, variables: { _ in [1, 2] })
        let good = server.client.subscribe("subscription { other }", as: Ticks.self)
        var results = bad.makeAsyncIterator()
        let socket = try await server.connect()
        #expect(await socket.nextSent() == #"{"id":"2","type":"subscribe","payload":{"query":"subscription { other }"}}"#)
        await #expect { _ = try await results.next() } throws: { ($0 as? GraphQLClientError)?.code == .encodingFailed }
        let later = server.client.subscribe("subscription { later }", as: Ticks.self)
        #expect(await socket.nextSent() == #"{"id":"3","type":"subscribe","payload":{"query":"subscription { later }"}}"#)
        _ = (good, later)
    }
}
#endif

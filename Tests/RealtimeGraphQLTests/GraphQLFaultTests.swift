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

}
#endif

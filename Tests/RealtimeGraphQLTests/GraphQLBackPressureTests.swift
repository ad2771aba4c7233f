#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// An application that does not take a subscription's results, on the embedded server of
/// ``GraphQLClientTests``: the client stops reading the socket, nothing is dropped, and a
/// `ping` behind the unread results waits with them.
@Suite(.timeLimit(.minutes(1))) struct GraphQLBackPressureTests {
    /// Far more results than every buffer between the socket and the application holds at
    /// the capacities set below.
    static let flood = 600

    /// Results beyond `subscriptionBufferCapacity` (and every buffer under it) all arrive,
    /// once and in order, when the application reads; the `ping` behind them is answered
    /// then, and the connection goes on.
    @Test func aFloodArrivesWholeAndThePingBehindItIsAnsweredOnceTheApplicationReads() async throws {
        let server = try EmbeddedGraphQLServer { c in
            c.subscriptionBufferCapacity = 2
            c.realtime.eventBufferCapacity = 16
        }
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let socket = try await server.connect()
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        for seq in 1...Self.flood { socket.receive(EmbeddedGraphQLServer.tick(1, seq)) }
        socket.receive(#"{"type":"ping"}"#)
        let seen = await server.network.runningLoop {
            var seen: [Int] = []
            var results = feed.makeAsyncIterator()
            while seen.count < Self.flood, let result = try? await results.next() { seen.append(result.data?.ticks.seq ?? -1) }
            return seen
        }
        #expect(seen == Array(1...Self.flood))
        #expect(await socket.nextSent() == #"{"type":"pong"}"#)
        #expect(socket.closedWith == nil)
    }
}
#endif

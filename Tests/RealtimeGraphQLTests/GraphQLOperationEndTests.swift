#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// How operations end, on the embedded server of ``GraphQLClientTests``: what the server
/// ended is not subscribed again, a cancel drops what the buffer holds, a result with no
/// data, and a reconnect policy that gives up.
@Suite(.timeLimit(.minutes(1))) struct GraphQLOperationEndTests {
    typealias Server = EmbeddedGraphQLServer

    /// An operation the server ended (`complete`, or `error`) is not subscribed again after a
    /// reconnect; the live one is, with a new id.
    @Test(arguments: [Server.complete(1), #"{"id":"1","type":"error","payload":[{"message":"gone"}]}"#])
    func anOperationTheServerEndedIsNotSubscribedAgain(end: String) async throws {
        let server = try Server()
        defer { server.client.close() }
        let ended = GraphQLClientTests.ticks(server)
        let live = GraphQLClientTests.ticks(server)
        var results = ended.makeAsyncIterator()
        let first = try await server.connect()
        _ = await first.nextSent()
        _ = await first.nextSent()
        first.receive(end)
        _ = try? await results.next()
        first.cut()
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == Server.subscribe(3, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        second.receive(#"{"type":"ping"}"#)
        #expect(await second.nextSent() == #"{"type":"pong"}"#, "no other subscribe went out")
        _ = live
    }

    /// `cancel()` drops the results the subscription holds: the sequence ends at once.
    @Test func cancelDropsTheResultsTheSubscriptionHolds() async throws {
        let server = try Server()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        var results = feed.makeAsyncIterator()
        let socket = try await server.connect()
        _ = await socket.nextSent()
        socket.receive(Server.tick(1, 1))
        socket.receive(Server.tick(1, 2))
        socket.receive(#"{"type":"ping"}"#)
        #expect(await socket.nextSent() == #"{"type":"pong"}"#, "both results were routed")
        feed.cancel()
        #expect(await socket.nextSent() == Server.complete(1))
        #expect(try await results.next() == nil)
    }

    /// A result with `"data": null` and errors has nil `data` and the errors.
    @Test func aResultWithoutDataHasNilDataAndItsErrors() async throws {
        let server = try Server()
        defer { server.client.close() }
        let (iterator, socket) = try await server.subscribedToTicks()
        var results = iterator
        socket.receive(#"{"id":"1","type":"next","payload":{"data":null,"errors":[{"message":"down","extensions":{"code":"UNAVAILABLE"}}]}}"#)
        let result = try #require(try await results.next())
        #expect(result.data == nil)
        #expect(result.errors == [GraphQLError(message: "down", code: "UNAVAILABLE")])
    }

    /// When the reconnect policy gives up, every subscription throws `connection_failed`
    /// with the client's error as `underlying`.
    @Test func aReconnectPolicyThatGivesUpEndsEverySubscriptionWithConnectionFailed() async throws {
        let server = try Server { $0.realtime.reconnect = .limited(maxAttempts: 2) }
        defer { server.client.close() }
        let (iterator, first) = try await server.subscribedToTicks()
        var results = iterator
        var other = GraphQLClientTests.ticks(server).makeAsyncIterator()
        _ = await first.nextSent()
        first.cut()
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        _ = await second.nextSent()
        second.cut()
        for _ in 0..<2 {
            await #expect { _ = try await results.next() } throws: {
                let e = $0 as? GraphQLClientError
                return e?.code == .connectionFailed && e?.underlying?.code == .retriesExhausted
            }
            swap(&results, &other)
        }
        #expect(server.client.realtime.statistics.attempts == 2)
    }

    /// A binary message is outside the protocol: the client closes with 4400 and
    /// reconnects, subscribing again from the newest result.
    @Test func aBinaryMessageIsAnsweredWith4400AndAReconnect() async throws {
        let server = try Server()
        defer { server.client.close() }
        let (iterator, first) = try await server.subscribedToTicks()
        var results = iterator
        first.receive(Server.tick(1, 1))
        first.server.sendBinary(Array(Server.tick(1, 2).utf8))
        #expect(GraphQLClientTests.seq(try await results.next()) == 1)
        #expect(await first.nextSent() == nil)
        #expect(first.closedWith?.code == 4400)
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == Server.subscribe(2, GraphQLClientTests.ticks, variables: #"{"after":1}"#))
    }
}
#endif

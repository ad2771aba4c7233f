#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// How a subscription stops without `cancel()`, on the embedded server of
/// ``GraphQLClientTests``: releasing the sequence and its iterator, cancelling the task that
/// iterates it; and what a second iterator of one subscription does.
@Suite(.timeLimit(.minutes(1))) struct GraphQLSubscriptionLifetimeTests {
    typealias Server = EmbeddedGraphQLServer

    /// Subscribes to ticks on `server`'s acknowledged connection and releases the sequence
    /// once its subscribe went out, without making an iterator.
    static func subscribeAndRelease(_ server: Server) async throws -> EmbeddedGraphQLSocket {
        let feed = GraphQLClientTests.ticks(server)
        let socket = try await server.connect()
        #expect(await socket.nextSent() == Server.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        withExtendedLifetime(feed) {}
        return socket
    }

    /// Releasing a subscription's sequence (no iterator made) sends `complete` for its id; the
    /// connection goes on.
    @Test func releasingTheSequenceSendsComplete() async throws {
        let server = try Server()
        defer { server.client.close() }
        let socket = try await Self.subscribeAndRelease(server)
        #expect(await socket.nextSent() == Server.complete(1))
        #expect(socket.closedWith == nil)
    }

    /// The iterator keeps the operation alive after its sequence is released; releasing the
    /// iterator too sends `complete`.
    @Test func anIteratorOutlivingItsSequenceKeepsTheOperationUntilItGoes() async throws {
        let server = try Server()
        defer { server.client.close() }
        let socket: EmbeddedGraphQLSocket
        do {
            var (results, connected) = try await server.subscribedToTicks()
            socket = connected
            socket.receive(Server.tick(1, 1))
            #expect(GraphQLClientTests.seq(try await results.next()) == 1)
            // The router answers the ping after it routed what came before: had the
            // operation ended with its sequence, `complete` would come first.
            socket.receive(#"{"type":"ping"}"#)
            #expect(await socket.nextSent() == #"{"type":"pong"}"#)
            socket.receive(Server.tick(1, 2))
            #expect(GraphQLClientTests.seq(try await results.next()) == 2)
        }
        #expect(await socket.nextSent() == Server.complete(1))
    }

    /// Cancelling the task that iterates a subscription ends its iteration and sends
    /// `complete` for its id, while the sequence itself is still held.
    @Test func cancellingTheIteratingTaskSendsComplete() async throws {
        let server = try Server()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let socket = try await server.connect()
        #expect(await socket.nextSent() == Server.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        let started = Signal()
        let reader = Task {
            var seen: [Int] = []
            for try await result in feed {
                seen.append(result.data?.ticks.seq ?? -1)
                started.raise()
            }
            return seen
        }
        socket.receive(Server.tick(1, 1))
        await started.wait()
        reader.cancel()
        #expect(await socket.nextSent() == Server.complete(1))
        #expect(try await reader.value == [1], "the iteration ends without an error")
        withExtendedLifetime(feed) {}
    }

    /// A second iterator of one subscription returns nil at once, and the first one goes on
    /// receiving; the second's end does not stop the operation.
    @Test func aSecondIteratorEndsAtOnceAndTheFirstGoesOn() async throws {
        let server = try Server()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        var first = feed.makeAsyncIterator()
        let socket = try await server.connect()
        #expect(await socket.nextSent() == Server.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        socket.receive(Server.tick(1, 1))
        var second = feed.makeAsyncIterator()
        #expect(try await second.next() == nil)
        #expect(GraphQLClientTests.seq(try await first.next()) == 1)
        socket.receive(#"{"type":"ping"}"#)
        #expect(await socket.nextSent() == #"{"type":"pong"}"#, "no complete went out before it")
        socket.receive(Server.tick(1, 2))
        #expect(GraphQLClientTests.seq(try await first.next()) == 2)
    }
}
#endif

#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// The `connection_init` payload on the embedded server of ``GraphQLClientTests``: none, one
/// that is not a JSON object, and a provider that throws.
@Suite(.timeLimit(.minutes(1))) struct GraphQLHandshakePayloadTests {
    struct ProviderFailed: Error {}

    /// No payload provider sends `connection_init` without a payload.
    @Test func noProviderSendsConnectionInitWithoutAPayload() async throws {
        let server = try EmbeddedGraphQLServer { $0.connectionPayload = nil }
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let socket = try await server.nextSocket()
        socket.open()
        #expect(await socket.nextSent() == #"{"type":"connection_init"}"#)
        _ = feed
    }

    /// A payload that does not encode as a JSON object ends the client with
    /// `encoding_failed`; no `connection_init` goes out and the client does not retry.
    @Test func aPayloadThatIsNotAnObjectEndsTheClientWithEncodingFailed() async throws {
        let server = try EmbeddedGraphQLServer { $0.connectionPayload = { ["not", "an", "object"] } }
        var results = GraphQLClientTests.ticks(server).makeAsyncIterator()
        let socket = try await server.nextSocket()
        socket.open()
        await #expect { _ = try await results.next() } throws: { ($0 as? GraphQLClientError)?.code == .encodingFailed }
        #expect(await socket.nextSent() == nil, "nothing went out")
        #expect(server.client.realtime.statistics.attempts == 1, "no retry")
    }

    /// A payload provider that throws fails that attempt only: the next attempt, after the
    /// backoff, asks the provider again and subscribes once acknowledged.
    @Test func aProviderThatThrowsFailsTheAttemptAndTheNextOneAsksAgain() async throws {
        let calls = Counter()
        let server = try EmbeddedGraphQLServer { c in
            c.connectionPayload = {
                if calls.next() == 1 { throw ProviderFailed() }
                return ["token": "t"]
            }
        }
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let first = try await server.nextSocket()
        first.open()
        #expect(await first.nextSent() == nil, "no connection_init without a payload")
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        #expect(calls.count == 2)
        _ = feed
    }

    /// The ack timeout counts the payload provider too: a provider that does not return
    /// within `ackTimeout` (here one that ignores cancellation) fails the attempt, which is
    /// retried with backoff.
    @Test func theAckTimeoutCountsThePayloadProvider() async throws {
        let calls = Counter()
        let never = Signal()
        defer { never.raise() }
        let server = try EmbeddedGraphQLServer { c in
            c.ackTimeout = .seconds(3)
            c.connectionPayload = {
                if calls.next() == 1 { await Task { await never.wait() }.value }
                return ["token": "t"]
            }
        }
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let first = try await server.nextSocket()
        first.open()
        await server.loop.waitForTimers(1)  // the handshake's deadline
        server.loop.advanceTime(by: .seconds(3))
        #expect(await first.nextSent() == nil, "no connection_init went out")
        #expect(first.closedWith != nil, "the client closed it")
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        _ = feed
    }
}
#endif

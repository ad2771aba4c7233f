#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Synchronization
import RealtimeCore
import Testing

/// What each graphql-transport-ws close code does to a `GraphQLClient` (over the production
/// WebSocket connection on the embedded stack, the test playing the server): 4400, 4403, 4406 and 4409 end it, 4401 is retried once, the others are
/// retried with the client's backoff; a message that breaks the protocol is answered with
/// 4400 and a reconnect; a server that closes every connection with 4429 is retried no
/// faster than the backoff allows.
@Suite(.timeLimit(.minutes(1))) struct GraphQLClientCloseCodeTests {
    /// The subscription's error once the server closed the first connection with `code`.
    static func finalError(after code: UInt16, reason: String = "") async throws -> (GraphQLClientError?, EmbeddedGraphQLServer) {
        let server = try EmbeddedGraphQLServer()
        var results = GraphQLClientTests.ticks(server).makeAsyncIterator()
        let socket = try await server.connect()
        _ = await socket.nextSent()
        socket.serverClose(code, reason: reason)
        do {
            _ = try await results.next()
            return (nil, server)
        } catch {
            return (error as? GraphQLClientError, server)
        }
    }

    @Test(arguments: [4400, 4403, 4406, 4409] as [UInt16])
    func aFinalCloseCodeEndsTheClientAndEverySubscription(code: UInt16) async throws {
        let (error, server) = try await Self.finalError(after: code, reason: "Forbidden")
        #expect(error?.code == .connectionRejected)
        #expect(error?.closeCode == code)
        #expect(error?.closeReason == "Forbidden")
        for await state in server.client.realtime.stateChanges {
            if case .closed = state { break }
        }
        #expect(server.client.realtime.statistics.attempts == 1, "no reconnect")
        var later = GraphQLClientTests.ticks(server).makeAsyncIterator()
        await #expect { _ = try await later.next() } throws: { ($0 as? GraphQLClientError)?.closeCode == code }
    }

    @Test(arguments: [4408, 4429, 4499, 4500, 4004, 1011, 1000, 1001] as [UInt16])
    func aRetriedCloseCodeReconnectsAndResubscribes(code: UInt16) async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let first = try await server.connect()
        _ = await first.nextSent()
        first.serverClose(code)
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(2, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        _ = feed
    }

    @Test func a4401IsRetriedOnceWithAFreshPayloadAndASecondOneEndsTheClient() async throws {
        let payloads = Counter()
        let server = try EmbeddedGraphQLServer { $0.connectionPayload = { ["token": "t\(payloads.next())"] } }
        var results = GraphQLClientTests.ticks(server).makeAsyncIterator()
        let first = try await server.nextSocket()
        first.open()
        #expect(await first.nextSent() == #"{"type":"connection_init","payload":{"token":"t1"}}"#)
        first.serverClose(4401, reason: "Unauthorized")
        await server.advance(by: .seconds(1))
        let second = try await server.nextSocket()
        second.open()
        #expect(await second.nextSent() == #"{"type":"connection_init","payload":{"token":"t2"}}"#)
        second.serverClose(4401, reason: "Unauthorized")
        await #expect { _ = try await results.next() } throws: {
            let e = $0 as? GraphQLClientError
            return e?.code == .connectionRejected && e?.closeCode == 4401
        }
        #expect(server.client.realtime.statistics.attempts == 2)
    }

    @Test func a4401AfterAnAcknowledgedConnectionStartsTheCountOver() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let first = try await server.openUnacknowledged()
        first.serverClose(4401)
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        _ = await second.nextSent()
        second.serverClose(4401)  // the token expired later: one more try
        await server.advance(by: .seconds(2))
        let third = try await server.connect()
        #expect(await third.nextSent() == EmbeddedGraphQLServer.subscribe(2, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        _ = feed
    }

    @Test(arguments: [
        #"{"type":"surprise"}"#, #"{"id":"1","type":"next","payload":[1]}"#, #"{"type":"next","payload":{}}"#,
        #"{"id":1,"type":"complete"}"#, "not json", #"{"id":"1","type":"error","payload":{"message":"x"}}"#,
    ])
    func aMessageOutsideTheProtocolIsAnsweredWith4400AndAReconnect(text: String) async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let (iterator, first) = try await server.subscribedToTicks()
        var results = iterator
        first.receive(EmbeddedGraphQLServer.tick(1, 1))
        first.receive(text)
        #expect(Self.seqOf(try await results.next()) == 1)
        #expect(await first.nextSent() == nil)
        #expect(first.closedWith?.code == 4400)
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(2, GraphQLClientTests.ticks, variables: #"{"after":1}"#))
    }

    @Test func aResultForAnOperationTheServerCompletedIsAViolation() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let other = GraphQLClientTests.ticks(server)
        var results = feed.makeAsyncIterator()
        let socket = try await server.connect()
        _ = await socket.nextSent()
        _ = await socket.nextSent()
        socket.receive(EmbeddedGraphQLServer.complete(1))
        socket.receive(EmbeddedGraphQLServer.tick(1, 1))  // the id is reused
        #expect(try await results.next() == nil)
        #expect(await socket.nextSent() == nil)
        #expect(socket.closedWith?.code == 4400)
        _ = other
    }

    @Test func anOperationMessageBeforeTheAckIsAViolation() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        let first = try await server.openUnacknowledged()
        first.receive(EmbeddedGraphQLServer.tick(1, 1))
        #expect(await first.nextSent() == nil)
        #expect(first.closedWith?.code == 4400)
        await server.advance(by: .seconds(1))
        _ = try await server.connect()
        _ = feed
    }

    @Test func aServerClosingEveryConnectionWith4429IsRetriedAtTheBackoffsPace() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = GraphQLClientTests.ticks(server)
        for (attempt, delay) in [1, 2, 4, 8, 16].enumerated() {
            let socket = try await server.nextSocket()
            socket.open()
            #expect(await socket.nextSent() == EmbeddedGraphQLServer.initMessage)
            socket.serverClose(4429, reason: "Too many initialisation requests")
            await server.waitForTheBackoff()
            server.loop.advanceTime(by: .seconds(delay) - .milliseconds(1))
            #expect(server.client.realtime.statistics.attempts == attempt + 1, "no attempt before the backoff is over")
            server.loop.advanceTime(by: .milliseconds(1))
        }
        _ = try await server.nextSocket()
        #expect(server.client.realtime.statistics.attempts == 6)
        _ = feed
    }

    static func seqOf(_ result: GraphQLResult<Ticks>?) -> Int? { result?.data?.ticks.seq }
}

/// Numbers from 1, from any task.
final class Counter: Sendable {
    private let value = LockedValue(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}
#endif

#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// `GraphQLClient` over the production WebSocket connection on the embedded stack, the test
/// playing the graphql-transport-ws server on its byte stream and moving the loop's time: the
/// handshake and its timeout, subscribe and results, `complete` both ways, ping and pong,
/// re-subscription from the cursor after a reconnect, and what each close code does. No
/// socket, no sleep: time moves only when a test moves it.
@Suite(.timeLimit(.minutes(1))) struct GraphQLClientTests {
    static let ticks = "subscription($after: Int!) { ticks(after: $after) { seq } }"

    static func ticks(_ server: EmbeddedGraphQLServer) -> GraphQLSubscription<Ticks> {
        server.client.subscribe(Self.ticks, as: Ticks.self, variables: { last in ["after": last?.ticks.seq ?? 0] })
    }

    static func seq(_ result: GraphQLResult<Ticks>?) -> Int? { result?.data?.ticks.seq }

    @Test func theHandshakeSendsTheInitPayloadAndSubscribesOnlyAfterTheAck() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = Self.ticks(server)
        var results = feed.makeAsyncIterator()
        let socket = try await server.nextSocket()
        #expect(socket.request.subprotocols == ["graphql-transport-ws"])
        socket.open()
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.initMessage)
        #expect(server.client.realtime.state == .connecting(attempt: 1), "not ready before the ack")
        socket.receive(EmbeddedGraphQLServer.ack)
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.subscribe(1, Self.ticks, variables: #"{"after":0}"#))
        socket.receive(EmbeddedGraphQLServer.tick(1, 1))
        socket.receive(EmbeddedGraphQLServer.complete(1))
        #expect(Self.seq(try await results.next()) == 1)
        #expect(try await results.next() == nil, "the server's complete ends the sequence")
    }

    @Test func noAckWithinTheAckTimeoutFailsTheAttemptAndTheNextOneStartsOver() async throws {
        let server = try EmbeddedGraphQLServer { $0.ackTimeout = .seconds(3) }
        defer { server.client.close() }
        let feed = Self.ticks(server)
        let first = try await server.openUnacknowledged()
        await server.loop.waitForTimers(1)  // the ack's deadline, armed before connection_init went out
        server.loop.advanceTime(by: .milliseconds(2999))
        #expect(!first.ended, "the ack may still come")
        server.loop.advanceTime(by: .milliseconds(1))
        #expect(await first.nextSent() == nil, "nothing but connection_init went out on it")
        #expect(first.closedWith != nil, "the client closed it")
        await server.advance(by: .seconds(1))
        let second = try await server.openUnacknowledged()
        second.receive(EmbeddedGraphQLServer.ack)
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(1, Self.ticks, variables: #"{"after":0}"#))
        _ = feed
    }

    @Test func aReconnectSubscribesAgainFromTheNewestResultReceived() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let (iterator, first) = try await server.subscribedToTicks()
        var results = iterator
        for seq in 1...3 { first.receive(EmbeddedGraphQLServer.tick(1, seq)) }
        #expect(Self.seq(try await results.next()) == 1)
        // The router answers the ping after it routed 2 and 3, which wait in the
        // subscription's buffer: the cursor is the newest received, not the newest read.
        first.receive(#"{"type":"ping"}"#)
        #expect(await first.nextSent() == #"{"type":"pong"}"#)
        first.cut()
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(2, Self.ticks, variables: #"{"after":3}"#))
        second.receive(EmbeddedGraphQLServer.tick(2, 4))
        var seen: [Int] = []
        for _ in 0..<3 { seen.append(try #require(Self.seq(try await results.next()))) }
        #expect(seen == [2, 3, 4])
    }

    @Test func resultsForAnIdOfAnEndedConnectionAreNotDelivered() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let (iterator, first) = try await server.subscribedToTicks()
        var results = iterator
        first.receive(EmbeddedGraphQLServer.tick(1, 1))
        #expect(Self.seq(try await results.next()) == 1)
        first.cut()
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(2, Self.ticks, variables: #"{"after":1}"#))
        second.receive(EmbeddedGraphQLServer.tick(1, 99))  // the old id: no operation of this connection
        second.receive(EmbeddedGraphQLServer.tick(2, 2))
        #expect(Self.seq(try await results.next()) == 2)
    }

    @Test func cancellingSendsCompleteAndLateResultsAreIgnored() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = Self.ticks(server)
        let other = server.client.subscribe("subscription { other }", as: Ticks.self)
        var results = other.makeAsyncIterator()
        let socket = try await server.connect()
        _ = await socket.nextSent()
        _ = await socket.nextSent()
        feed.cancel()
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.complete(1))
        socket.receive(EmbeddedGraphQLServer.tick(1, 5))  // in flight when the server got our complete
        socket.receive(EmbeddedGraphQLServer.tick(2, 7))
        #expect(Self.seq(try await results.next()) == 7, "the connection goes on")
        #expect(socket.closedWith == nil)
    }

    @Test func anErrorMessageEndsItsOperationWithTheGraphQLErrorsAndOnlyIt() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let bad = server.client.subscribe("subscription { nope }", as: Ticks.self)
        let good = Self.ticks(server)
        var badResults = bad.makeAsyncIterator()
        var goodResults = good.makeAsyncIterator()
        let socket = try await server.connect()
        _ = await socket.nextSent()
        _ = await socket.nextSent()
        socket.receive(#"{"id":"1","type":"error","payload":[{"message":"Cannot query field 'nope'","locations":[{"line":1,"column":16}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}"#)
        socket.receive(EmbeddedGraphQLServer.tick(2, 1))
        do {
            _ = try await badResults.next()
            Issue.record("the failed operation yielded a result")
        } catch let error as GraphQLClientError {
            #expect(error.code == .operationFailed)
            #expect(error.errors == [GraphQLError(
                message: "Cannot query field 'nope'", locations: [.init(line: 1, column: 16)], code: "GRAPHQL_VALIDATION_FAILED")])
        }
        #expect(Self.seq(try await goodResults.next()) == 1)
    }

    @Test func partialDataArrivesWithItsErrors() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = server.client.subscribe("subscription { readings { seq note } }", as: Readings.self)
        var results = feed.makeAsyncIterator()
        let socket = try await server.connect()
        _ = await socket.nextSent()
        socket.receive(#"{"id":"1","type":"next","payload":{"data":{"readings":{"seq":2,"note":null}},"errors":[{"message":"no note","path":["readings","note"]}]}}"#)
        let result = try #require(try await results.next())
        #expect(result.data == Readings(readings: .init(seq: 2, note: nil)))
        #expect(result.errors.map(\.path) == [[.field("readings"), .field("note")]])
    }

    @Test func theServersPingIsAnsweredDuringTheHandshakeAndAfterIt() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feed = Self.ticks(server)
        let socket = try await server.openUnacknowledged()
        socket.receive(#"{"type":"ping","payload":{"at":1}}"#)
        #expect(await socket.nextSent() == #"{"type":"pong"}"#)
        socket.receive(#"{"type":"pong"}"#)  // unsolicited: ignored
        socket.receive(EmbeddedGraphQLServer.ack)
        _ = await socket.nextSent()
        socket.receive(#"{"type":"ping"}"#)
        #expect(await socket.nextSent() == #"{"type":"pong"}"#)
        _ = feed
    }

    @Test func aRepeatedAckIsIgnored() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let (iterator, socket) = try await server.subscribedToTicks()
        var results = iterator
        socket.receive(EmbeddedGraphQLServer.ack)
        socket.receive(EmbeddedGraphQLServer.tick(1, 1))
        #expect(Self.seq(try await results.next()) == 1)
        #expect(socket.closedWith == nil && server.client.realtime.statistics.attempts == 1)
    }

    @Test func aSubscriptionMadeWhileConnectedGoesOutAtOnceWithTheNextId() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let first = Self.ticks(server)
        let socket = try await server.connect()
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.subscribe(1, Self.ticks, variables: #"{"after":0}"#))
        let second = server.client.subscribe("subscription { letters { seq letter } }", as: Letters.self, operationName: "L")
        #expect(await socket.nextSent() == #"{"id":"2","type":"subscribe","payload":{"query":"subscription { letters { seq letter } }","operationName":"L"}}"#)
        _ = (first, second)
    }

    @Test func everyLiveSubscriptionIsSubscribedAgainInTheOrderMadeWithNewIds() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let feeds = (0..<3).map { _ in Self.ticks(server) }
        let first = try await server.connect()
        for id in 1...3 { #expect(await first.nextSent() == EmbeddedGraphQLServer.subscribe(id, Self.ticks, variables: #"{"after":0}"#)) }
        feeds[1].cancel()
        #expect(await first.nextSent() == EmbeddedGraphQLServer.complete(2))
        first.serverClose(1012)
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(4, Self.ticks, variables: #"{"after":0}"#))
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(5, Self.ticks, variables: #"{"after":0}"#))
    }

    @Test func aResultThatDoesNotDecodeEndsItsSubscriptionWhichIsCompleted() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let (iterator, socket) = try await server.subscribedToTicks()
        var results = iterator
        socket.receive(EmbeddedGraphQLServer.next(1, #"{"ticks":{"seq":"one"}}"#))
        await #expect { _ = try await results.next() } throws: { error in
            let e = error as? GraphQLClientError
            return e?.code == .decodingFailed && e?.detail?.contains("data.ticks.seq") == true
                && e?.description.contains("one") == false
        }
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.complete(1))
    }

    @Test func variablesThatAreNotAnObjectFailTheSubscriptionAndNothingGoesOut() async throws {
        let server = try EmbeddedGraphQLServer()
        defer { server.client.close() }
        let bad = server.client.subscribe(Self.ticks, as: Ticks.self, variables: { _ in [1, 2] })
        let good = server.client.subscribe("subscription { other }", as: Ticks.self)
        var results = bad.makeAsyncIterator()
        let socket = try await server.connect()
        #expect(await socket.nextSent() == #"{"id":"2","type":"subscribe","payload":{"query":"subscription { other }"}}"#)
        await #expect { _ = try await results.next() } throws: { ($0 as? GraphQLClientError)?.code == .encodingFailed }
        // The server is not sent a `complete` for the id it never saw: what goes out next is
        // the next subscription.
        let later = server.client.subscribe("subscription { later }", as: Ticks.self)
        #expect(await socket.nextSent() == #"{"id":"3","type":"subscribe","payload":{"query":"subscription { later }"}}"#)
        _ = (good, later)
    }

    @Test func aSubscriptionAfterCloseThrowsClosed() async throws {
        let server = try EmbeddedGraphQLServer()
        server.client.close()
        var results = Self.ticks(server).makeAsyncIterator()
        await #expect { _ = try await results.next() } throws: { ($0 as? GraphQLClientError)?.code == .closed }
    }

    @Test func closeEndsEverySubscriptionAfterWhatItHolds() async throws {
        let server = try EmbeddedGraphQLServer()
        let (iterator, socket) = try await server.subscribedToTicks()
        var results = iterator
        socket.receive(EmbeddedGraphQLServer.tick(1, 1))
        socket.receive(EmbeddedGraphQLServer.tick(1, 2))
        socket.receive(#"{"type":"ping"}"#)
        // The router answers the ping after it routed what came before it.
        #expect(await socket.nextSent() == #"{"type":"pong"}"#)
        server.client.close()
        #expect(Self.seq(try await results.next()) == 1)
        #expect(Self.seq(try await results.next()) == 2)
        #expect(try await results.next() == nil)
        #expect(socket.closedWith?.code == 1000)
    }

    @Test func aServerThatPicksNoSubprotocolEndsTheClient() async throws {
        let server = try EmbeddedGraphQLServer()
        var results = Self.ticks(server).makeAsyncIterator()
        let socket = try await server.nextSocket()
        socket.open(subprotocol: nil)
        await #expect { _ = try await results.next() } throws: {
            let e = $0 as? GraphQLClientError
            return e?.code == .connectionRejected && e?.closeCode == 4406
        }
        #expect(server.client.realtime.statistics.attempts == 1)
    }
}
#endif

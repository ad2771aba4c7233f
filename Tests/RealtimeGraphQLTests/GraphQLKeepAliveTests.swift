#if os(Linux)
import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// The client's own `ping` (``GraphQLClient/Configuration/keepAlive``), on the embedded server
/// of ``GraphQLClientTests``: after the configured silence, and a dead connection replaced
/// once the pongs stop.
@Suite(.timeLimit(.minutes(1))) struct GraphQLKeepAliveTests {
    static let ping = #"{"type":"ping"}"#

    /// A ticks subscription on a client with a 5 s keep-alive and `missed` pings allowed,
    /// its subscribe read; the keep-alive's first deadline is armed.
    static func subscribed(missed: Int) async throws -> (EmbeddedGraphQLServer, GraphQLSubscription<Ticks>, EmbeddedGraphQLSocket) {
        let server = try EmbeddedGraphQLServer { c in
            c.keepAlive = .seconds(5)
            c.keepAliveMissedLimit = missed
        }
        let feed = GraphQLClientTests.ticks(server)
        let socket = try await server.connect()
        #expect(await socket.nextSent() == EmbeddedGraphQLServer.subscribe(1, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        await server.loop.waitForTimer(dueAt: server.loop.now.advanced(by: .seconds(5)))
        return (server, feed, socket)
    }

    /// The client sends `ping` after `keepAlive` of silence from the server, not before; a
    /// `pong` keeps the connection.
    @Test func aPingGoesOutAfterTheSilenceAndAPongKeepsTheConnection() async throws {
        let (server, feed, socket) = try await Self.subscribed(missed: 1)
        defer { server.client.close() }
        server.loop.advanceTime(by: .seconds(5) - .milliseconds(1))
        socket.receive(EmbeddedGraphQLServer.tick(1, 1))  // the server speaks: silence starts over
        server.loop.advanceTime(by: .seconds(5) - .milliseconds(1))
        #expect(socket.server.texts.count == 2, "no ping while the server speaks")
        server.loop.advanceTime(by: .milliseconds(1))
        #expect(await socket.nextSent() == Self.ping)
        socket.receive(#"{"type":"pong"}"#)
        server.loop.advanceTime(by: .seconds(5))
        #expect(await socket.nextSent() == Self.ping, "the next ping, the connection alive")
        #expect(!socket.ended && server.client.realtime.statistics.attempts == 1)
        _ = feed
    }

    /// After `keepAliveMissedLimit` unanswered pings the connection is dead
    /// (`heartbeat_timeout`): it is replaced, and the subscription subscribed again.
    @Test func unansweredPingsReplaceTheConnection() async throws {
        let (server, feed, first) = try await Self.subscribed(missed: 2)
        defer { server.client.close() }
        server.loop.advanceTime(by: .seconds(5))
        #expect(await first.nextSent() == Self.ping)
        server.loop.advanceTime(by: .seconds(5))
        #expect(await first.nextSent() == Self.ping)
        server.loop.advanceTime(by: .seconds(5) - .milliseconds(1))
        #expect(!first.ended, "alive until three intervals of silence")
        server.loop.advanceTime(by: .milliseconds(1))
        #expect(await first.nextSent() == nil)
        #expect(server.client.realtime.statistics.errorsByClass[.heartbeat] == 1)
        await server.advance(by: .seconds(1))
        let second = try await server.connect()
        #expect(await second.nextSent() == EmbeddedGraphQLServer.subscribe(2, GraphQLClientTests.ticks, variables: #"{"after":0}"#))
        _ = feed
    }
}
#endif

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// `GraphQLClient` against `Tests/Peers/graphql_hostile.py`, a server that breaks
/// graphql-transport-ws on purpose: it never acks, acks twice, sends an unknown message
/// type, reuses an operation id, closes every connection with 4429, pings and waits for the
/// answers, or never answers the client's pings. Each test checks what the application sees
/// and what the server saw (the peer's record of connections, pings, pongs, subscribes and
/// close codes).
@Suite("GraphQL against a hostile server", .timeLimit(.minutes(3)), .serialized)
struct GraphQLHostileServerTests {
    struct Stats: Decodable {
        var connections: Int
        var inits: Int
        var pings: Int
        var pongs: Int
        var completes: [String]
        var afters: [Int]
        var closeCodes: [Int]
    }

    struct FeedVariables: Encodable, Sendable {
        var after: Int
        var count: Int
    }

    static func client(
        _ peer: PythonPeer, _ name: String, configure: (inout GraphQLClient.Configuration) -> Void = { _ in }
    ) throws -> GraphQLClient {
        var configuration = GraphQLClient.Configuration()
        configuration.realtime.backoff = .exponential(initial: .milliseconds(100), maximum: .seconds(1), jitter: .none)
        configure(&configuration)
        return try GraphQLClient(url: peer.url(scheme: "ws", path: "/\(name)"), configuration: configuration)
    }

    static func feed(_ client: GraphQLClient, count: Int) -> GraphQLSubscription<Ticks> {
        client.subscribe(
            "subscription($after: Int!, $count: Int!) { ticks(after: $after, count: $count) { seq } }", as: Ticks.self,
            variables: { last in FeedVariables(after: last?.ticks.seq ?? 0, count: count) })
    }

    static func collect(_ feed: GraphQLSubscription<Ticks>) async throws -> [Int] {
        var seen: [Int] = []
        for try await result in feed { seen.append(try #require(result.data).ticks.seq) }
        return seen
    }

    static func stats(_ peer: PythonPeer, _ name: String) async throws -> Stats {
        let data = try await LoopbackHTTP.get(peer.url(scheme: "http", path: "/stats/\(name)"))
        return try JSONDecoder().decode(Stats.self, from: data)
    }

    /// Waits until the client makes attempt `attempt` (through its state changes).
    static func waitForAttempt(_ attempt: Int, of client: GraphQLClient) async {
        for await state in client.realtime.stateChanges {
            if case .connecting(let a) = state, a >= attempt { return }
            if case .open(let info) = state, info.attempt >= attempt { return }
        }
    }

    @Test("no ack: each attempt fails at the ack timeout, retried with backoff until the policy gives up")
    func noAck() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "noack") {
            $0.ackTimeout = .milliseconds(300)
            $0.realtime.reconnect = .limited(maxAttempts: 3)
        }
        defer { client.close() }
        await #expect { _ = try await Self.collect(Self.feed(client, count: 5)) } throws: { error in
            let e = error as? GraphQLClientError
            return e?.code == .connectionFailed && e?.underlying?.code == .retriesExhausted
                && e?.underlying?.underlying?.code == .openHookFailed
        }
        let stats = try await Self.stats(peer, "noack")
        #expect(stats.connections == 3 && stats.inits == 3)
        #expect(stats.afters.isEmpty, "nothing was subscribed on an unacknowledged connection")
        await peer.stop()
    }

    @Test("ack twice: the repeated acks are ignored, one connection, every value once")
    func ackTwice() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "acktwice")
        defer { client.close() }
        #expect(try await Self.collect(Self.feed(client, count: 10)) == Array(1...10))
        let stats = try await Self.stats(peer, "acktwice")
        #expect(stats.connections == 1 && stats.closeCodes.isEmpty)
        await peer.stop()
    }

    @Test("an unknown message type: the client closes with 4400, reconnects and resumes; every value once")
    func unknownType() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "unknown")
        defer { client.close() }
        let count = FeedCount(received: try await Self.collect(Self.feed(client, count: 10)), count: 10)
        #expect(count.exact, "\(count)")
        let stats = try await Self.stats(peer, "unknown")
        #expect(stats.closeCodes == [4400])
        #expect(stats.afters == [0, 3], "re-subscribed after the last value received")
        await peer.stop()
    }

    @Test("an id reused after its complete: the subscription ended at the complete, the connection is closed with 4400")
    func reusedID() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "reuse")
        defer { client.close() }
        #expect(try await Self.collect(Self.feed(client, count: 10)) == [1, 2, 3], "nothing after the complete")
        await Self.waitForAttempt(2, of: client)
        let stats = try await Self.stats(peer, "reuse")
        #expect(stats.closeCodes == [4400])
        #expect(stats.afters == [0], "a completed subscription is not subscribed again")
        await peer.stop()
    }

    @Test("a 4429 storm: every attempt waits its backoff, and the reconnect policy bounds them")
    func storm4429() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "storm") { $0.realtime.reconnect = .limited(maxAttempts: 5) }
        defer { client.close() }
        let started = ContinuousClock.now
        await #expect { _ = try await Self.collect(Self.feed(client, count: 5)) } throws: { error in
            let e = error as? GraphQLClientError
            return e?.code == .connectionFailed && e?.underlying?.code == .retriesExhausted
                && e?.underlying?.closeCode == 4429
        }
        let stats = try await Self.stats(peer, "storm")
        print("GraphQL 4429 storm: \(stats.connections) connections in \(ContinuousClock.now - started) (backoff 0.1+0.2+0.4+0.8 s)")
        #expect(stats.connections == 5 && stats.inits == 5)
        #expect(client.realtime.statistics.attempts == 5)
        await peer.stop()
    }

    @Test("the server's pings, before the ack and between results, are answered by the transport while the app reads nothing")
    func serverPings() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "pings") { $0.subscriptionBufferCapacity = 1 }
        defer { client.close() }
        let feed = Self.feed(client, count: 5)
        var results = feed.makeAsyncIterator()
        // The server sends each result only after the pong to its previous ping. Nobody reads
        // the subscription (its buffer holds one result), so only the transport can answer.
        #expect(await eventually { client.realtime.statistics.messages >= 7 }, "the ack, five results and the complete arrived")
        let stats = try await Self.stats(peer, "pings")
        #expect(stats.pongs == 6, "one before the ack, one per result")
        var seen: [Int] = []
        while let result = try await results.next() { seen.append(try #require(result.data).ticks.seq) }
        #expect(seen == Array(1...5))
        #expect(stats.connections == 1)
        await peer.stop()
    }

    @Test("keep-alive: a server that never answers the client's pings is declared dead and reconnected to")
    func deafServer() async throws {
        let peer = try await PythonPeer.start(script: "graphql_hostile.py")
        defer { peer.terminate() }
        let client = try Self.client(peer, "deaf") {
            $0.keepAlive = .milliseconds(200)
            $0.keepAliveMissedLimit = 1
        }
        defer { client.close() }
        #expect(try await Self.collect(Self.feed(client, count: 3)) == [1, 2, 3])
        await Self.waitForAttempt(2, of: client)
        let stats = try await Self.stats(peer, "deaf")
        #expect(stats.pings >= 1, "the client pinged the quiet server")
        #expect(client.realtime.statistics.errorsByClass[.heartbeat, default: 0] >= 1)
        await peer.stop()
    }
}

import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// `GraphQLClient` against strawberry-graphql's graphql-transport-ws server under uvicorn
/// (`Tests/Peers/graphql_strawberry.py`): the handshake with an auth payload, many
/// subscriptions on one connection, partial data with errors, an operation error, a refused
/// connection_init, and a server restart mid-stream with every value counted.
@Suite("GraphQL against strawberry", .timeLimit(.minutes(3)), .serialized)
struct GraphQLStrawberryTests {
    static func peer(_ arguments: [String] = []) async throws -> PythonPeer {
        try await PythonPeer.start(script: "graphql_strawberry.py", arguments: arguments)
    }

    static func client(_ peer: PythonPeer, token: String = "good") throws -> GraphQLClient {
        var configuration = GraphQLClient.Configuration()
        configuration.connectionPayload = { ["token": token] }
        configuration.realtime.backoff = .exponential(initial: .milliseconds(100), maximum: .milliseconds(400), jitter: .none)
        return try GraphQLClient(url: peer.url(scheme: "ws", path: "/graphql"), configuration: configuration)
    }

    @Test("a server restart mid-stream: both feeds re-subscribed from their cursors, nothing lost or repeated")
    func restartMidStream() async throws {
        let first = try await Self.peer()
        let port = first.port
        let client = try Self.client(first)
        defer { client.close() }
        let ticks = client.subscribe(
            "subscription($after: Int!) { ticks(after: $after, count: 600, intervalMs: 4) { seq } }", as: Ticks.self,
            variables: { last in ["after": last?.ticks.seq ?? 0] })
        let letters = client.subscribe(
            "subscription($after: Int!) { letters(after: $after, count: 300, intervalMs: 8) { seq letter } }",
            as: Letters.self, variables: { last in ["after": last?.letters.seq ?? 0] })
        let halfway = Signal()
        let tickTask = Task {
            var seen: [Int] = []
            for try await result in ticks {
                seen.append(try #require(result.data).ticks.seq)
                if seen.count == 150 { halfway.raise() }
            }
            return seen
        }
        let letterTask = Task {
            var seen: [Int] = []
            for try await result in letters {
                let letter = try #require(result.data).letters
                #expect(letter.letter == String(UnicodeScalar(UInt8(96 + (letter.seq - 1) % 26 + 1))))
                seen.append(letter.seq)
            }
            return seen
        }
        await halfway.wait()
        await first.stop()
        let second = try await PythonPeer.start(script: "graphql_strawberry.py", arguments: ["--port", "\(port)"])
        defer { second.terminate() }
        let tickCount = FeedCount(received: try await tickTask.value, count: 600)
        let letterCount = FeedCount(received: try await letterTask.value, count: 300)
        print("GraphQL restart: ticks \(tickCount); letters \(letterCount); connections \(client.realtime.statistics.connections)")
        #expect(tickCount.exact, "\(tickCount)")
        #expect(letterCount.exact, "\(letterCount)")
        #expect(client.realtime.statistics.connections >= 2, "the restart was a reconnect")
        await second.stop()
    }

    @Test("three subscriptions on one connection: typed data, partial data with its error, an operation error")
    func manyOnOneConnection() async throws {
        let peer = try await Self.peer()
        defer { peer.terminate() }
        let client = try Self.client(peer)
        defer { client.close() }
        let ticks = client.subscribe("subscription { ticks(count: 5) { seq } }", as: Ticks.self)
        let readings = client.subscribe("subscription { readings(count: 4) { seq note } }", as: Readings.self)
        let broken = client.subscribe("subscription { nope }", as: Ticks.self)
        var seen: [Int] = []
        for try await result in ticks { seen.append(try #require(result.data).ticks.seq) }
        #expect(seen == [1, 2, 3, 4, 5])
        var notes: [String?] = []
        for try await result in readings {
            let reading = try #require(result.data).readings
            notes.append(reading.note)
            if reading.seq % 2 == 0 {
                #expect(result.errors.map(\.message) == ["no note for reading \(reading.seq)"])
                #expect(result.errors.first?.path == [.field("readings"), .field("note")])
            } else {
                #expect(result.errors.isEmpty)
            }
        }
        #expect(notes == ["note 1", nil, "note 3", nil])
        await #expect { for try await _ in broken {} } throws: { error in
            let e = error as? GraphQLClientError
            return e?.code == .operationFailed && e?.errors.first?.message.contains("nope") == true
        }
        #expect(client.realtime.statistics.connections == 1)
        await peer.stop()
    }

    @Test("a refused connection_init (4403): every subscription ends with connection_rejected, no reconnect")
    func refusedInit() async throws {
        let peer = try await Self.peer()
        defer { peer.terminate() }
        let client = try Self.client(peer, token: "wrong")
        defer { client.close() }
        await #expect { for try await _ in client.subscribe("subscription { ticks { seq } }", as: Ticks.self) {} } throws: {
            let e = $0 as? GraphQLClientError
            return e?.code == .connectionRejected && e?.closeCode == 4403 && e?.closeReason == "Forbidden"
        }
        #expect(client.realtime.statistics.attempts == 1)
        await peer.stop()
    }

    @Test("connection_init too late (4408) is retried, with a fresh payload")
    func lateInit() async throws {
        let peer = try await Self.peer(["--init-timeout-ms", "300"])
        defer { peer.terminate() }
        let calls = Counter()
        var configuration = GraphQLClient.Configuration()
        configuration.connectionPayload = {
            // The first payload takes longer than the server waits for connection_init.
            if calls.next() == 1 { await WallTime.hold(for: .seconds(1)) }
            return ["token": "good"]
        }
        configuration.realtime.backoff = .exponential(initial: .milliseconds(100), jitter: .none)
        let client = try GraphQLClient(url: peer.url(scheme: "ws", path: "/graphql"), configuration: configuration)
        defer { client.close() }
        var seen: [Int] = []
        for try await result in client.subscribe("subscription { ticks(count: 3) { seq } }", as: Ticks.self) {
            seen.append(try #require(result.data).ticks.seq)
        }
        #expect(seen == [1, 2, 3])
        // At least one retry, each with a payload of its own. (A machine loaded enough to take
        // 300 ms from the second upgrade to its connection_init gets 4408 again, and retries.)
        let attempts = client.realtime.statistics.attempts
        #expect(attempts >= 2)
        #expect(calls.count == attempts, "a fresh payload per attempt")
        await peer.stop()
    }

    /// The program of the GraphQL article (`Sources/Realtime/Realtime.docc/GraphQL.md`), its
    /// lines unchanged but for the URL and where the values go, with the server restarted
    /// after the 40th value.
    @Test("the article's program: a subscription that survives a server restart, every value once")
    func articleProgram() async throws {
        let first = try await Self.peer()
        let port = first.port
        let restart = Signal()
        let program = Task {
            var seen: [Int] = []
            var configuration = GraphQLClient.Configuration()
            configuration.connectionPayload = { ["token": "good"] }
            let client = try GraphQLClient(url: first.url(scheme: "ws", path: "/graphql"), configuration: configuration)
            let ticks = client.subscribe(
                "subscription($after: Int!) { ticks(after: $after, count: 100) { seq } }", as: Ticks.self,
                variables: { last in ["after": last?.ticks.seq ?? 0] })
            for try await result in ticks {
                guard let tick = result.data?.ticks else { continue }
                seen.append(tick.seq)
                if seen.count == 40 { restart.raise() }
            }
            client.close()
            return seen
        }
        await restart.wait()
        await first.stop()
        let second = try await PythonPeer.start(script: "graphql_strawberry.py", arguments: ["--port", "\(port)"])
        defer { second.terminate() }
        let count = FeedCount(received: try await program.value, count: 100)
        print("GraphQL article program: \(count)")
        #expect(count.exact, "\(count)")
        await second.stop()
    }
}

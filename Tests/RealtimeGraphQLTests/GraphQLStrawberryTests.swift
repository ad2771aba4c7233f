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
}

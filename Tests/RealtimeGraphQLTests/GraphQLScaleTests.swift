import Foundation
import Realtime
import RealtimeGraphQL
import RealtimeTestSupport
import Testing

/// 500 `GraphQLClient`s in one process against one strawberry server, each with a resumable
/// subscription, through a server restart mid-stream: every client resumes from its cursor
/// (the reconnects paced by one shared retry budget) and every value arrives once; the
/// server restarts once every client has its first value. Runs in a
/// child test process of its own (`ChildTestProcess`): 500 connections and their tasks must
/// not share the process with the other suites' timing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct GraphQLScaleTests {
    static let childVariable = "RT_GRAPHQL_SCALE_CHILD"
    static let clients = 500
    /// Enough that the first client opened is still mid-stream when the last one opens
    /// (4 s of values; the 500 open within about 2 s).
    static let values = 80

    @Test func fiveHundredClientsResumeAcrossAServerRestart() async throws {
        if ChildTestProcess.isChild(Self.childVariable, lowPriority: false) {
            try await Self.scale()
            return
        }
        let (status, lines) = try await ChildTestProcess.relay(
            filter: "GraphQLScaleTests", variable: Self.childVariable, timeoutSeconds: 240, prefix: "GraphQL scale")
        #expect(status == 0, "the child process failed (exit \(status))")
        #expect(lines.contains { $0.hasPrefix("GraphQL scale:") }, "the child ran and reported its numbers")
    }

    static func scale() async throws {
        let first = try await PythonPeer.start(script: "graphql_strawberry.py")
        let port = first.port
        let budget = RetryBudget(burst: 50, perSecond: 250)
        let started = ContinuousClock.now
        let clients = try (0..<Self.clients).map { _ in try Self.client(first.url(scheme: "ws", path: "/graphql"), budget: budget) }
        defer { clients.forEach { $0.close() } }
        let subscribed = Counter()
        let restart = Signal()
        let (counts, subscribedAfter) = try await withThrowingTaskGroup(of: FeedCount.self) { group in
            for client in clients {
                group.addTask {
                    var seen: [Int] = []
                    let feed = client.subscribe(
                        "subscription($after: Int!) { ticks(after: $after, count: \(Self.values), intervalMs: 50) { seq } }",
                        as: Ticks.self, variables: { last in ["after": last?.ticks.seq ?? 0] })
                    for try await result in feed {
                        seen.append(try #require(result.data).ticks.seq)
                        // Once every client has its first value, all of them are mid-stream:
                        // the server restarts.
                        if seen.count == 1, subscribed.next() == Self.clients { restart.raise() }
                    }
                    return FeedCount(received: seen, count: Self.values)
                }
            }
            await restart.wait()
            let subscribedAfter = ContinuousClock.now - started
            await first.stop()
            let second = try await PythonPeer.start(script: "graphql_strawberry.py", arguments: ["--port", "\(port)"])
            defer { second.terminate() }
            var counts: [FeedCount] = []
            for try await count in group { counts.append(count) }
            return (counts, subscribedAfter)
        }
        let lost = counts.map(\.lost).reduce(0, +)
        let duplicated = counts.map(\.duplicated).reduce(0, +)
        let connections = clients.map { $0.realtime.statistics.connections }
        print("GraphQL scale: \(Self.clients) clients, \(counts.count * Self.values) values through a restart, "
            + "\(lost) lost, \(duplicated) duplicated, connections \(connections.min()!)...\(connections.max()!), "
            + "all subscribed after \(subscribedAfter), in \(ContinuousClock.now - started), peak RSS \(ProcessResources.peakResidentBytes / 1_048_576) MiB")
        #expect(counts.count == Self.clients)
        let inexact = counts.filter { !$0.exact }
        #expect(inexact.isEmpty, "\(inexact.prefix(3))")
        #expect(connections.allSatisfy { $0 >= 2 }, "every client reconnected")
    }

    static func client(_ url: URL, budget: RetryBudget) throws -> GraphQLClient {
        var configuration = GraphQLClient.Configuration()
        configuration.connectionPayload = { ["token": "good"] }
        configuration.realtime.backoff = .exponential(initial: .milliseconds(200), maximum: .seconds(2))
        configuration.realtime.retryBudget = budget
        // A fleet to one server: 64 may open at once (RFC 6455 §4.1 would take them one by one).
        configuration.realtime.webSocket.maxConnectingPerAddress = 64
        return try GraphQLClient(url: url, configuration: configuration)
    }
}

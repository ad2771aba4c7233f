#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// `Configuration.duplicates` against a loopback SSE server that replays its whole snapshot
/// on every resume (ids from 1, whatever `Last-Event-ID` says): each id reaches the consumer
/// once, the replays are counted, and the cursor follows what was processed.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientDuplicateLoopbackTests {
    /// Connection n (counted by the `Last-Event-ID` it sends: none, "3", "6") gets ids 1…3n, then a clean end.
    static func replayingServer() throws -> TestServer {
        let server = TestServer()
        try server.start()
        server.setHandler(path: "/snapshot") { writer in
            let resumedFrom = writer.request.headers["Last-Event-ID"].flatMap { Int($0) } ?? 0
            try writer.writeHead(status: 200, headers: ["Content-Type": "text/event-stream"], framing: .closeDelimited)
            for id in 1...(resumedFrom + 3) { try writer.write("id: \(id)\ndata: event \(id)\n\n") }
            try writer.finish()
        }
        return server
    }

    static func run(_ server: TestServer, duplicates: DuplicateFilter?) async throws -> (ids: [String], client: RealtimeClient) {
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.connectTimeout = .seconds(5)
        c.duplicates = duplicates
        let client = try RealtimeClient(url: server.url("/snapshot"), configuration: c)
        var ids: [String] = []
        try await client.consume { event, context in
            guard case .event(let m) = event else { return }
            ids.append(m.id ?? "?")
            if ids.count == 9 { context.stop() }
        }
        return (ids, client)
    }

    @Test func replayedIDsAreDroppedAndCounted() async throws {
        let server = try Self.replayingServer()
        defer { server.stop() }
        let (ids, client) = try await Self.run(server, duplicates: .numericIDs)
        #expect(ids == (1...9).map { "\($0)" })
        #expect(client.statistics.duplicatesDropped == 3 + 6, "connection 2 replays 1…3, connection 3 replays 1…6")
        #expect(client.lastEventID == "9")
        let resumes = server.requests(path: "/snapshot").map { $0.headers["Last-Event-ID"] }
        #expect(resumes.prefix(3) == [nil, "3", "6"], "resumed from what was processed, duplicates included")
    }

    @Test func withoutTheFilterTheReplaysAreDelivered() async throws {
        let server = try Self.replayingServer()
        defer { server.stop() }
        let (ids, client) = try await Self.run(server, duplicates: nil)
        #expect(ids == ["1", "2", "3", "1", "2", "3", "4", "5", "6"])
        #expect(client.statistics.duplicatesDropped == 0)
    }

    @Test func aWindowOfRecentIDsDropsTheReplaysToo() async throws {
        let server = try Self.replayingServer()
        defer { server.stop() }
        let (ids, client) = try await Self.run(server, duplicates: .recentIDs())
        #expect(ids == (1...9).map { "\($0)" })
        #expect(client.statistics.duplicatesDropped == 9)
    }
}
#endif

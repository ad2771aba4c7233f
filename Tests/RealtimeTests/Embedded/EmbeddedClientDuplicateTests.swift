#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `Configuration.duplicates` over the production SSE connection on the embedded stack, the
/// server replaying its whole snapshot on every resume (ids from 1, whatever `Last-Event-ID`
/// says): each id reaches the consumer once, the replays are counted, and the cursor follows
/// what was processed.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientDuplicateTests {
    /// Consumes until nine events were processed, the server of each attempt sending ids
    /// 1…(resumed + 3) then a clean end; the ids seen, and the `Last-Event-ID` of each attempt.
    static func run(duplicates: DuplicateFilter?) async throws -> (ids: [String], resumes: [String?], client: RealtimeClient) {
        let t = try EmbeddedClient {
            $0.backoff = .immediate
            $0.duplicates = duplicates
        }
        let consumer = Task { [client = t.client] in
            var ids: [String] = []
            try await client.consume { event, context in
                guard case .event(let m) = event else { return }
                ids.append(m.id ?? "?")
                if ids.count == 9 { context.stop() }
            }
            return ids
        }
        var resumes: [String?] = []
        attempts: while true {
            let attempt = resumes.count + 1
            let state = await t.network.waitForState(of: t.client) { state in
                switch state {
                case .closed, .waitingToRetry: true
                default: state == .connecting(attempt: attempt)
                }
            }
            switch state {
            case .closed?, nil: break attempts  // the consumer stopped
            case .waitingToRetry(let delay)?:
                t.advance(by: delay)
                continue attempts
            default: break
            }
            await t.network.waitForTransport(attempt - 1)
            let server = try #require(t.sse(attempt - 1))
            resumes.append(server.request.lastEventID)
            let resumedFrom = server.request.lastEventID.flatMap { Int($0) } ?? 0
            server.respond()
            server.send((1...(resumedFrom + 3)).map { "id: \($0)\ndata: event \($0)\n\n" }.joined())
            server.finish()
        }
        let ids = try await consumer.value
        return (ids, resumes, t.client)
    }

    @Test func replayedIDsAreDroppedAndCounted() async throws {
        let (ids, resumes, client) = try await Self.run(duplicates: .numericIDs)
        #expect(ids == (1...9).map { "\($0)" })
        #expect(client.statistics.duplicatesDropped == 3 + 6, "connection 2 replays 1…3, connection 3 replays 1…6")
        #expect(client.statistics.messages == 3 + 6 + 9, "every message received, the dropped ones too")
        #expect(client.lastEventID == "9")
        #expect(resumes == [nil, "3", "6"], "resumed from what was processed, duplicates included")
    }

    @Test func withoutTheFilterTheReplaysAreDelivered() async throws {
        let (ids, _, client) = try await Self.run(duplicates: nil)
        #expect(ids == ["1", "2", "3", "1", "2", "3", "4", "5", "6"])
        #expect(client.statistics.duplicatesDropped == 0)
    }

    /// `batches` hands every message over, the filter set or not: a replay arrives again.
    @Test func batchesAreNotFiltered() async throws {
        let t = try EmbeddedClient { $0.duplicates = .numericIDs }
        defer { t.client.close() }
        var it = t.client.batches.makeAsyncIterator()
        let first = try await t.openedSSE()
        first.send(EmbeddedClientBatchTests.chunk(1...3))
        first.finish()
        #expect(await it.next()?.short == "open(1)")
        #expect(await it.next()?.short == "[m1,m2,m3]")
        #expect(await it.next()?.short == "closed(reconnect)")
        await t.client.acknowledge()
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == "3")
        second.respond()
        second.send(EmbeddedClientBatchTests.chunk(1...4))
        #expect(await it.next()?.short == "open(2)")
        #expect(await it.next()?.short == "[m1,m2,m3,m4]", "the replay of 1…3 is handed over")
        #expect(t.client.statistics.duplicatesDropped == 0)
    }

    @Test func aWindowOfRecentIDsDropsTheReplaysToo() async throws {
        let (ids, _, client) = try await Self.run(duplicates: .recentIDs())
        #expect(ids == (1...9).map { "\($0)" })
        #expect(client.statistics.duplicatesDropped == 9)
    }
}
#endif

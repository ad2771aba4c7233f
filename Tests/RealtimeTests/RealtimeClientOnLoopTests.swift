#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import Testing

/// Consuming on the I/O loop: `withTaskExecutorPreference(EventLoop.shared)` runs the
/// consumer's task on the loop thread (see `EventLoop+TaskExecutor`). Same guarantees as on
/// the cooperative pool: every event once and in order across cuts, sends work, and a task
/// that prefers a loop that shuts down keeps running.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientOnLoopTests {
    @Test func aTaskThatPrefersTheLoopRunsOnItThread() async {
        let onLoop = await withTaskExecutorPreference(EventLoop.shared) { () async -> [Bool] in
            var seen = [EventLoop.shared.inEventLoop]
            await Task.yield()
            seen.append(EventLoop.shared.inEventLoop)
            // Awaiting the loop from the loop suspends rather than deadlocking.
            let inside = await EventLoop.shared.submit { EventLoop.shared.inEventLoop }
            seen.append(inside)
            seen.append(EventLoop.shared.inEventLoop)
            return seen
        }
        #expect(onLoop == [true, true, true, true])
        #expect(!EventLoop.shared.inEventLoop)
    }

    @Test func aTaskOnALoopThatShutsDownContinuesElsewhere() async {
        let loop = EventLoop(name: "t-exec-stop")
        let parked = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        let (parkedSignal, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            await withTaskExecutorPreference(loop) { () async -> (Bool, Bool) in
                let before = loop.inEventLoop
                await withCheckedContinuation { c in
                    parked.withLock { $0 = c }
                    signal.yield()
                }
                return (before, loop.inEventLoop)
            }
        }
        // Once the task has parked, stop its loop and resume it.
        var signals = parkedSignal.makeAsyncIterator()
        _ = await signals.next()
        loop.shutdown()
        parked.withLock { $0 }?.resume()
        let (before, after) = await task.value
        #expect(before, "it started on the loop")
        #expect(!after, "after shutdown it runs on the global executor, not on a dead loop")
    }

    @Test func resumesExactlyAcrossCutsWithTheConsumerOnTheLoop() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .immediate
        configuration.idleTimeout = .seconds(5)
        configuration.eventBufferCapacity = 16  // pauses and resumes the transfer many times
        let client = try RealtimeClient(url: server.url("/sse?count=3000&cuts=30&seed=9&end=204&utf8=1"), configuration: configuration)
        let (ids, allOnLoop) = await withTaskExecutorPreference(EventLoop.shared) { () async -> ([Int], Bool) in
            var ids: [Int] = []
            var allOnLoop = true
            for await e in client.events {
                allOnLoop = allOnLoop && EventLoop.shared.inEventLoop
                if case .event(let m) = e, let id = m.id.flatMap({ Int($0) }) {
                    #expect(m.text?.hasSuffix(SSEStreamOptions.utf8Suffix) == true)
                    ids.append(id)
                }
            }
            return (ids, allOnLoop)
        }
        #expect(ids == Array(1...3000), "every id once, in order")
        #expect(allOnLoop)
        #expect(server.requests(path: "/sse").count >= 31, "each cut resumed")
    }

    @Test func aConsumerOnTheLoopCanSend() async throws {
        let server = TestServer()
        try server.start()
        defer { server.stop() }
        var configuration = RealtimeClient.Configuration()
        configuration.idleTimeout = .seconds(5)
        let client = try RealtimeClient(url: server.wsURL("/ws?mode=echo"), configuration: configuration)
        let echoed = await withTaskExecutorPreference(EventLoop.shared) { () async -> [String] in
            var texts: [String] = []
            for await e in client.events {
                switch e {
                case .open:
                    for i in 0..<50 { try? await client.send(.text("m\(i)")) }
                case .event(let m):
                    texts.append(m.text ?? "")
                    if texts.count == 50 { client.close() }
                default:
                    break
                }
            }
            return texts
        }
        #expect(echoed == (0..<50).map { "m\($0)" })
    }
}
#endif

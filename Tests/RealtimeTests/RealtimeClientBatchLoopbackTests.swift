#if os(Linux)
import Foundation
import Realtime
import RealtimeTestServer
import RealtimeTestSupport
import Synchronization
import RealtimeCore
import Testing

/// `client.batches` with the real SSE transport on loopback: packed batches, exact resume
/// across cuts and across a restart from a stored cursor, back-pressure by TCP.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RealtimeClientBatchLoopbackTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    private func client(_ path: String, _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws
        -> RealtimeClient
    {
        var c = RealtimeClient.Configuration()
        c.backoff = .immediate
        c.connectTimeout = .seconds(5)
        c.idleTimeout = .seconds(5)
        configure(&c)
        return try RealtimeClient(url: server.url(path), configuration: c)
    }

    @Test func everyIDOnceAcrossCutsAndEachResumeFromAProcessedBatch() async throws {
        defer { server.stop() }
        let c = try client("/sse?count=3000&cuts=10&seed=7&end=204&utf8=1")
        var ids: [Int] = []
        var batchEnds: Set<Int> = []
        var largest = 0
        for await item in c.batches {
            guard case .messages(let batch) = item else { continue }
            largest = max(largest, batch.count)
            for m in batch {
                ids.append(Int(m.id ?? "") ?? -1)
                #expect(m.text?.hasSuffix(SSEStreamOptions.utf8Suffix) == true)
            }
            batchEnds.insert(ids.last ?? -1)
        }
        #expect(ids == Array(1...3000), "every id once, in order")
        #expect(largest > 1, "events that arrive together come in one batch")
        let resumed = server.requests(path: "/sse").compactMap(\.lastEventID)
        #expect(resumed.count >= 10, "each cut resumed with Last-Event-ID")
        #expect(resumed.allSatisfy { batchEnds.contains($0) }, "a resume names the last id of a processed batch: \(resumed)")
        #expect(c.lastEventID == "3000")
    }

    @Test func aRestartFromTheStoredCursorDeliversEveryIDOnce() async throws {
        defer { server.stop() }
        let stored = LockedValue<String?>(nil)
        let store = CursorStore(load: { stored.withLock { $0 } }, save: { id in stored.withLock { $0 = id } })
        let path = "/sse?count=2000&size=200&end=204"
        var ids: [Int] = []
        // First life: stop after the batch that reaches id 700, acknowledged before leaving.
        let first = try client(path) { $0.cursorStore = store }
        for await item in first.batches {
            guard case .messages(let batch) = item else { continue }
            ids += batch.map { Int($0.id ?? "") ?? -1 }
            if ids.last ?? 0 >= 700 {
                await first.acknowledge()
                break
            }
        }
        let cursor = stored.withLock { $0 }
        #expect(cursor == ids.last.map(String.init), "the acknowledged batch's last id was saved")
        let requestsBefore = server.requests(path: "/sse").count
        // Second life: a new client, resuming from the stored cursor.
        let second = try client(path) { $0.cursorStore = store }
        for await item in second.batches {
            guard case .messages(let batch) = item else { continue }
            ids += batch.map { Int($0.id ?? "") ?? -1 }
        }
        #expect(ids == Array(1...2000), "every id exactly once across the restart")
        let resumed = server.requests(path: "/sse").dropFirst(requestsBefore).first?.lastEventID
        #expect(resumed.map(String.init) == cursor, "the second life resumed from the stored cursor")
    }

    @Test func aStalledBatchConsumerStopsTheServerAndLosesNothing() async throws {
        defer { server.stop() }
        let count = 20_000, size = 1_000
        let c = try client("/sse?count=\(count)&size=\(size)&end=204") {
            $0.eventBufferCapacity = 32
            // A consumer that stopped reading is not silence.
            $0.idleTimeout = .milliseconds(1500)
        }
        var it = c.batches.makeAsyncIterator()
        guard case .open? = await it.next() else { Issue.record("no open"); return }
        let written = await TransportConformanceTests.plateau(quietFor: .milliseconds(2000)) { server.statistics.bytesWritten }
        print("Batch back-pressure: server stopped after \(written / 1024) KiB of \(count * size / 1024) KiB")
        #expect(written < count * size / 4, "the server was not stopped: \(written) bytes written")
        var ids: [Int] = []
        while let item = await it.next() {
            if case .messages(let batch) = item {
                #expect(batch.count <= 32 && (batch.payloadByteCount <= 32 * 1024 || batch.count == 1))
                ids += batch.map { Int($0.id ?? "") ?? -1 }
            }
        }
        #expect(ids == Array(1...count), "nothing lost, in order")
        // One connection for the stream (the pause was not taken for silence), then the
        // resume after its clean end, answered with 204.
        #expect(server.requests(path: "/sse").map(\.lastEventID) == [nil, count])
    }
}
#endif

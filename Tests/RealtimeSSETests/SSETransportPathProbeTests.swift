#if os(Linux)
import RealtimeCore
import RealtimeIO
import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `verifyConnection(within:)` on SSE (path change): a silent stream is declared
/// dead after the probe timeout, long before its idle timeout; a stream that keeps sending
/// (comments count) survives the probe.
@Suite("SSETransport: path-change probe", .timeLimit(.minutes(1)))
struct SSETransportPathProbeTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    @Test("a silent stream ends with idleTimeout after the probe, not the idle timeout")
    func silentStreamFailsTheProbe() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=1&end=hold")) {
            $0.idleTimeout = .seconds(60)
        })
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        var r = TransportRun()
        var probedAt: ContinuousClock.Instant?
        for await e in tEvents {
            r.events.append(e)
            if case .message = e {
                probedAt = .now
                t.verifyConnection(within: .milliseconds(300))
            }
        }
        let elapsed = ContinuousClock.now - (probedAt ?? .now)
        #expect(r.ids == ["1"])
        #expect(r.end?.error?.code == .idleTimeout)
        #expect(elapsed >= .milliseconds(300))
        // Only catches a wait for the 60 s idle timeout; loose for a loaded machine.
        #expect(elapsed < .seconds(30))
    }

    @Test("a stream that keeps sending survives the probe")
    func livelyStreamPassesTheProbe() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=1&end=hold&ping_ms=20")) {
            $0.idleTimeout = .seconds(60)
        })
        let tEvents = t.eventStream(capacity: t.request.eventBufferCapacity)
        var r = TransportRun()
        for await e in tEvents {
            r.events.append(e)
            if case .message = e {
                // 1 s: fifty pings' worth, so a starved server thread on a loaded machine
                // does not look like a dead path.
                t.verifyConnection(within: .seconds(1))
                Task {
                    try await Task.sleep(for: .seconds(3))
                    t.close()
                }
            }
        }
        #expect(r.ids == ["1"])
        #expect(r.end?.error?.code == .cancelled, "still alive when the test closed it")
    }

    @Test("before the connection opens, a probe is a no-op")
    func probeBeforeOpenIsIgnored() async throws {
        let t = SSETransport(request: request(server.url("/sse?count=2")))
        t.verifyConnection(within: .milliseconds(1))
        let r = await run(t)
        #expect(r.ids == ["1", "2"])
        #expect(r.end?.error == nil)
    }
}
#endif

#if os(Linux)
@_spi(Transport) import RealtimeCore
import RealtimeIO
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `verifyConnection(within:)` on SSE through the transport. The probe's timing (a silent
/// stream fails it long before its idle timeout, a byte passes it) is tested on the embedded
/// loop (`SSEConnectionEmbeddedTests`).
@Suite("SSETransport: path-change probe", .timeLimit(.minutes(1)))
struct SSETransportPathProbeTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
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

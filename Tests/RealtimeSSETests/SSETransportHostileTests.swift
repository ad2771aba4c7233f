#if os(Linux)
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeSSE
import RealtimeTestServer
import Testing
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An endless response header line through libcurl: a precise, typed error (never `internal`
/// or out of memory). The other hostile inputs to one attempt are on the embedded stack
/// (`SSEConnectionEmbeddedHTTPTests`).
@Suite("SSETransport: hostile input", .timeLimit(.minutes(1)))
struct SSETransportHostileTests {
    let server: TestServer

    init() throws {
        server = TestServer()
        try server.start()
    }

    @Test("an endless response header line is a protocol violation, not internal or out of memory")
    func endlessHeaderLine() async throws {
        let r = await run(SSETransport(request: request(server.url("/sse?long_header=1048576"))))
        let end = try #require(r.end)
        #expect(r.opened.isEmpty)
        #expect(end.error?.code == .protocolViolation, "\(String(describing: end.error))")
        #expect(end.error?.detail?.contains("header line too long") == true)
        #expect(end.requestWasDelivered)
    }
}
#endif

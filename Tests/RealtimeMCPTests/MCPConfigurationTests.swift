import Foundation
import Realtime
@testable import RealtimeMCP
import Testing

/// The defaults of ``MCPClient/Configuration`` and ``MCPStreamableHTTPTransport/Configuration``
/// are the values their doc comments and the MCP article give.
@Suite struct MCPConfigurationTests {
    /// `MCPClient.Configuration()` and `MCPStreamableHTTPTransport.Configuration()`: each
    /// default is the one documented (the MCP article's limits included).
    @Test func theDefaultsAreTheDocumentedOnes() {
        let c = MCPClient.Configuration()
        #expect(c.revision == .negotiate)
        #expect(c.requestTimeout == .seconds(60))
        #expect(c.capabilities == [:])
        #expect(c.clientInfo == ["name": "swift-realtime", "version": "1.0"])
        #expect(c.renewsExpiredSession == false)
        #expect(c.notificationBuffer == 256)
        #expect(c.maxConcurrentServerRequests == 16)
        #expect(c.maxReissues == 2)
        #expect(c.maxInputRounds == 8)
        #expect(c.traceContext == nil)
        #expect(MCPClient.maxPages == 1000, "the all… methods follow at most 1,000 pages")
        #expect(MCPInboundQueue.capacity == 64, "the transport reads at most 64 messages ahead")
        #expect(MCPStreamableHTTPTransport.transportErrorCode == -32000)

        let t = MCPStreamableHTTPTransport.Configuration()
        #expect(t.revision == nil)
        #expect(t.headers.isEmpty)
        #expect(t.headersProvider == nil)
        #expect(t.tls == .default)
        #expect(t.connectTimeout == .seconds(10))
        #expect(t.responseTimeout == nil)
        #expect(t.idleTimeout == nil)
        #expect(t.maxMessageBytes == 16 * 1024 * 1024)
        #expect(t.maxResumeAttempts == 5)
        #expect(t.backoff == .default)
        #expect(t.opensServerStream == true)
        #expect(t.clientCapabilities == [:])
        #expect(t.clientInfo == ["name": "swift-realtime", "version": "1.0"])
        #if os(Linux)
        #expect(t.eventLoop === EventLoop.shared)
        #endif
        #expect(t.logHandler == nil)
        #expect(c.transport.connectTimeout == t.connectTimeout && c.transport.maxResumeAttempts == t.maxResumeAttempts)
    }
}

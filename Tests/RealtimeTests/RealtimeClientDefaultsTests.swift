import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeWebSocket
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE

/// Defaults users should not trip over, as documented. (The idle timeout's, through a
/// connection: `EmbeddedClientDefaultsTests`.)
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientDefaultsTests {
    /// The defaults the Configuration article's tables give, one by one: changing one is a
    /// deliberate change of the documented behaviour, and this test says so.
    @Test func theConfigurationDefaultsAreTheDocumentedOnes() {
        let c = RealtimeClient.Configuration()
        #expect(c.method == "GET" && c.headers.isEmpty && c.body == nil && c.headersProvider == nil)
        #expect(c.requestIsRepeatable == nil && c.subprotocols.isEmpty)
        #expect(c.lastEventID == nil && c.cursorStore == nil && c.messageID == nil && c.resumeURL == nil)
        #expect(c.terminator == nil && c.duplicates == nil && c.retryBudget == nil && c.onOpen == nil)
        #expect(c.backoff.initial == .seconds(1) && c.backoff.multiplier == 2 && c.backoff.maximum == .seconds(30))
        #expect(c.backoff.jitter == .decorrelated && c.backoff.resetAfter == .seconds(10))
        #expect(BackoffPolicy.minimumDelay == .milliseconds(100))
        #expect(c.reconnect.isEnabled && c.reconnect.maxAttempts == nil && c.reconnect.reconnectsAfterCleanEnd)
        #expect(c.reconnect.circuitBreaker == nil)
        #expect(c.heartbeat.interval == .seconds(30) && c.heartbeat.missedLimit == 2 && c.heartbeat.mode == .whenIdle)
        #expect(c.sendPolicy == .failFast && c.onOpenTimeout == .seconds(10))
        #expect(c.connectTimeout == .seconds(10) && c.idleTimeout == .seconds(300) && c.maxRedirects == 10)
        #expect(c.sensitiveHeaderNames.isEmpty && !c.allowsInsecureRedirects && c.pathChangeProbeTimeout == .seconds(5))
        #expect(c.eventBufferCapacity == 256 && c.logHandler == nil && c.logLevel == .info)
        #expect(c.tls.verification == .full)
        let breaker = CircuitBreaker()
        #expect(breaker.failureThreshold == 10 && breaker.coolDown == .seconds(120))
        #expect(SendPolicy.queue() == .queue(maxMessages: 256, maxBytes: 1 << 20, timeout: .seconds(30)))
    }

    /// The Transports article's WebSocket table.
    @Test func theWebSocketDefaultsAreTheDocumentedOnes() {
        let o = WebSocketOptions()
        #expect(o.maxFrameSize == 16 << 20 && o.maxMessageSize == 16 << 20)
        #expect(o.closeTimeout == .seconds(5) && o.writeTimeout == .seconds(20))
        #expect(o.outboundQueueCapacity == 64 && o.maxOutboundBytes == 16 << 20)
        #expect(o.socket.noDelay && o.socket.userTimeout == .seconds(30))
        #expect(o.socket.keepAlive == TCPKeepAlive(idle: .seconds(30), interval: .seconds(10), count: 3))
        #expect(SSEOptions().tcpKeepAlive == o.socket.keepAlive)
    }

    /// The Transports article's SSE table, and the rest of the WebSocket one.
    @Test func theSSEDefaultsAreTheDocumentedOnes() {
        let o = SSEOptions()
        #expect(o.limits.maxEventSize == 16 << 20 && o.limits.maxIDLength == 1024)
        #expect(o.limits.maxLineLength >= o.limits.maxEventSize, "lines as long as an event")
        #expect(!o.strictUTF8 && !o.reportsComments && o.preferHTTP2)
        #expect(o.tcpUserTimeout == .seconds(30) && o.receiveBufferSize == 16 * 1024 && o.userAgent == "swift-realtime")
        #expect("\(o.proxy)" == "\(ProxyConfiguration.environment)")
        let w = WebSocketOptions()
        #expect(w.compression == .permessageDeflate(WebSocketDeflateOptions()) && w.maxConnectingPerAddress == 1)
        #expect("\(w.proxy)" == "\(ProxyConfiguration.environment)")
    }

    /// The defaults of the policies the Resilience and Exact resume articles give.
    @Test func thePolicyDefaultsAreTheDocumentedOnes() {
        let budget = RetryBudget()
        #expect(budget.burst == 100 && budget.perSecond == 50)
        #expect(RealtimeClient.HandlerFailurePolicy.redeliver() == .redeliver(maxDeliveries: 3, after: .seconds(1)))
        let plan = RealtimeClient.ResumePlan(cursor: { _, _ in nil }) { request, _ in request }
        #expect(plan.maxResumesWithoutProgress == 3)
        let backoff = BackoffPolicy()
        #expect(backoff.honorsServerHints && backoff.maximumServerDelay == nil)
        let reconnect = ReconnectPolicy()
        #expect(reconnect.retriesAfterProtocolViolation && !reconnect.retriesAfterLimitExceeded)
        #expect(!reconnect.repeatsNonIdempotentRequests && reconnect.finalCloseCodes.isEmpty)
        #expect(DuplicateFilter.defaultWindow == 1024)
    }

    /// `heartbeat` and `webSocket.heartbeat` are one setting: whichever is set reaches the
    /// WebSocket transport the client makes.
    @Test func theHeartbeatIsOneSetting() throws {
        var c = RealtimeClient.Configuration()
        c.webSocket.heartbeat = .disabled
        #expect(c.heartbeat.isEnabled == false)
        let request = TransportRequest(url: URL(string: "ws://127.0.0.1:9/ws")!)
        let disabled = try #require(try RealtimeClient.defaultTransportFactory(configuration: c)(request) as? WebSocketTransport)
        #expect(disabled.options.heartbeat.isEnabled == false)
        c.heartbeat = .ping(every: .seconds(7), mode: .fixedInterval)
        #expect(c.webSocket.heartbeat.interval == .seconds(7) && c.webSocket.heartbeat.mode == .fixedInterval)
        let fixed = try #require(try RealtimeClient.defaultTransportFactory(configuration: c)(request) as? WebSocketTransport)
        #expect(fixed.options.heartbeat.interval == .seconds(7) && fixed.options.heartbeat.mode == .fixedInterval)
    }
}

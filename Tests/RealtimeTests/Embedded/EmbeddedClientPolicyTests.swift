#if os(Linux)
import Foundation
@_spi(Transport) import Realtime
import RealtimeCore
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The client's policies over the production SSE connection on the embedded stack, each
/// failure as the server or the network gives it: backoff and the server's hints
/// (`Retry-After`, bounded by the configuration), attempt limits and the cause they keep, which
/// requests are sent again (RFC 9110 §9.2.2, a connection refused before the request left),
/// credentials refreshed once on 401, the headers provider's failures, the circuit breaker, a
/// shared retry budget, back-pressure down to the transfer, and the statistics.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientPolicyTests {
    /// Answers `server` with `status` and a plain body, then ends the transfer.
    static func answer(
        _ server: EmbeddedSSEServer, _ status: Int, body: String = "no", type: String = "text/plain", retryAfter: String? = nil
    ) {
        var headers = [("Content-Type", type)]
        if let retryAfter { headers.append(("Retry-After", retryAfter)) }
        server.respond(status: status, headers: headers)
        server.send(body)
        server.finish()
    }

    @Test(arguments: [429, 500])
    func aFiniteRequestAnsweredWithAnErrorReportsTheAnswer(_ status: Int) async throws {
        let t = try EmbeddedClient { $0 = .llm(body: [1]); $0.networkMonitor = nil; $0.backoff = .exponential(jitter: .none) }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        Self.answer(first, status, body: #"{"error":"slow down"}"#, type: "application/json", retryAfter: "7")
        await rec.waitUntilFinished()
        let e = try #require(rec.events.first?.errorEvent)
        #expect(e.error.code == .httpStatus && e.error.status == status && !e.willRetry)
        #expect(e.error.bodyExcerpt == #"{"error":"slow down"}"# && e.error.retryAfter == .seconds(7))
        #expect(t.connectionCount == 1)
        #expect(t.client.statistics.errorsByClass == [.http: 1])
    }

    @Test func retriesExhaustedKeepsItsCause() async throws {
        let t = try EmbeddedClient { $0.reconnect = .limited(maxAttempts: 2) }
        let rec = EventRecorder(t.client)
        Self.answer(try await t.sseAttempt(1), 503, body: "maintenance", retryAfter: "1")
        await t.waitOutTheBackoff()
        Self.answer(try await t.sseAttempt(2), 503, body: "maintenance", retryAfter: "1")
        await rec.waitUntilFinished()
        let last = try #require(rec.events.last?.errorEvent?.error)
        #expect(last.code == .retriesExhausted)
        #expect(last.underlying?.code == .httpStatus && last.underlying?.status == 503)
        #expect(last.underlying?.bodyExcerpt == "maintenance" && last.underlying?.retryAfter == .seconds(1))
        #expect(t.client.statistics.errorsByClass == [.http: 2], "counted as the cause's class")
    }

    @Test func aPostIsSentAgainWhenTheConnectionWasRefused() async throws {
        let t = try EmbeddedClient { $0.method = "POST"; $0.body = [1] }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        try await t.sseAttempt(1).refuseConnection()
        await rec.waitFor(1)
        #expect(rec.summary == "error(network,retry)", "the request never left")
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(second.request.method == "POST" && second.request.body == [1])
    }

    @Test func aRepeatablePostIsSentAgainAfterACut() async throws {
        let t = try EmbeddedClient { $0.method = "POST"; $0.body = [1]; $0.requestIsRepeatable = true }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.reset()
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) error(network,retry) closed(reconnect)")
        await t.waitOutTheBackoff()
        #expect(try await t.sseAttempt(2).request.body == [1])
    }

    @Test func maxAttemptsGivesUp() async throws {
        let t = try EmbeddedClient { $0.reconnect = .limited(maxAttempts: 3) }
        let rec = EventRecorder(t.client)
        for attempt in 1...3 {
            Self.answer(try await t.sseAttempt(attempt), 503)
            if attempt < 3 { await t.waitOutTheBackoff() }
        }
        await rec.waitUntilFinished()
        let errors = rec.events.compactMap(\.errorEvent)
        #expect(errors.map(\.retryIn) == [.seconds(1), .seconds(2), nil])
        #expect(errors.map(\.attempt) == [1, 2, 3])
        let last = try #require(errors.last)
        #expect(last.error.code == .retriesExhausted && !last.willRetry && last.error.status == 503)
        #expect(t.connectionCount == 3)
        t.run()
        #expect(t.loop.pendingTimerCount == 0)
    }

    @Test func retryAfterBeyondTheMaximumIsBounded() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        Self.answer(try await t.sseAttempt(1), 429, retryAfter: "3600")
        #expect(await rec.waitFor(1).at(0)?.errorEvent?.retryIn == .seconds(30), "the configured maximum bounds the server")
    }

    @Test func retryAfterIsHonoured() async throws {
        let t = try EmbeddedClient { $0.backoff.maximumServerDelay = .seconds(3600) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        Self.answer(try await t.sseAttempt(1), 429, retryAfter: "120")
        #expect(await rec.waitFor(1).at(0)?.errorEvent?.retryIn == .seconds(120))
        await t.waitForTheBackoff()
        t.advance(by: .seconds(119))
        #expect(t.connectionCount == 1 && t.client.state.isWaitingToRetry, "not before the server's delay")
        t.advance(by: .seconds(1))
        _ = try await t.sseAttempt(2)
    }

    @Test func aStableConnectionResetsTheBackoff() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        for attempt in 1...2 {
            try await t.sseAttempt(attempt).reset()
            await t.waitOutTheBackoff()
        }
        let third = try await t.sseAttempt(3)
        third.respond()
        await rec.waitFor(3)
        t.advance(by: .seconds(10))  // stable (resetAfter 10 s)
        third.event("keep-alive")
        third.reset()
        let events = await rec.waitFor(6)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(2), .seconds(1)])
        #expect(events.last?.closeEvent?.willReconnect == true)
    }

    @Test func unauthorizedRefreshesTheCredentialsOnceAtOnce() async throws {
        let calls = LockedValue<[RealtimeClient.HeadersContext]>([])
        let t = try EmbeddedClient {
            $0.headers = ["Authorization": "Bearer static", "X-App": "1"]
            $0.headersProvider = { ctx in
                calls.withLock { $0.append(ctx) }
                return ["Authorization": ctx.credentialsRejected ? "Bearer fresh" : "Bearer stale"]
            }
        }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        #expect(first.request.headers["Authorization"] == "Bearer stale")
        #expect(first.request.headers["X-App"] == "1")
        #expect(first.request.headers.values(for: "Authorization").count == 1)
        Self.answer(first, 401)
        let second = try await t.sseAttempt(2)  // the loop's time has not moved: no backoff
        #expect(second.request.headers["Authorization"] == "Bearer fresh")
        Self.answer(second, 401)
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(http_status,retry) error(unauthorized,stop)")
        #expect(calls.withLock { $0.map(\.credentialsRejected) } == [false, true])
        #expect(calls.withLock { $0.map(\.attempt) } == [1, 2])
        #expect(rec.events.at(0)?.errorEvent?.retryIn == .zero)
        let unauthorized = try #require(rec.events.at(1)?.errorEvent?.error)
        #expect(unauthorized.status == 401 && unauthorized.bodyExcerpt == "no")
        #expect(unauthorized.underlying?.code == .httpStatus && unauthorized.underlying?.status == 401, "the second 401 beneath it")
    }

    /// A 401 on the WebSocket upgrade refreshes the credentials the same way: once, at once,
    /// and the upgrade is sent again with the provider's fresh headers; a second 401 stops.
    @Test func aWebSocketUpgradeRefusedWith401RefreshesTheCredentialsOnceAtOnce() async throws {
        let calls = LockedValue<[RealtimeClient.HeadersContext]>([])
        let t = try EmbeddedClient("ws://peer.test/ws") {
            $0.headersProvider = { ctx in
                calls.withLock { $0.append(ctx) }
                return ["Authorization": ctx.credentialsRejected ? "Bearer fresh" : "Bearer stale"]
            }
        }
        let rec = EventRecorder(t.client)
        let start = t.loop.now
        let first = try await t.webSocketAttempt(1)
        first.refuse(status: 401)
        #expect(first.upgradeRequest?.contains("Authorization: Bearer stale\r\n") == true)
        let second = try await t.webSocketAttempt(2)
        #expect(t.loop.now == start, "no backoff before the refreshed attempt")
        second.refuse(status: 401)
        #expect(second.upgradeRequest?.contains("Authorization: Bearer fresh\r\n") == true)
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(handshake,retry) error(unauthorized,stop)")
        #expect(calls.withLock { $0.map(\.credentialsRejected) } == [false, true])
        #expect(calls.withLock { $0.map(\.attempt) } == [1, 2])
        #expect(rec.events.at(1)?.errorEvent?.error.underlying?.status == 401)
    }

    /// `.immediate` paces a server that paces itself: its `Retry-After` is the delay, and
    /// without one the next attempt comes at the floor.
    @Test func immediateBackoffHonoursRetryAfter() async throws {
        let t = try EmbeddedClient { $0.backoff = .immediate }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        Self.answer(try await t.sseAttempt(1), 503, retryAfter: "7")
        await t.waitOutTheBackoff()
        Self.answer(try await t.sseAttempt(2), 503)
        await t.waitOutTheBackoff()
        _ = try await t.sseAttempt(3)
        let events = await rec.waitFor(2)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(7), .milliseconds(100)])
    }

    /// A 401 that refreshes the credentials spends no attempt of `maxAttempts`: with two
    /// allowed, a 401 and then a 503 still leave the third attempt its turn.
    @Test func aCredentialRefreshSpendsNoAttempt() async throws {
        let t = try EmbeddedClient {
            $0.reconnect = .limited(maxAttempts: 2)
            $0.headersProvider = { ctx in ["Authorization": ctx.credentialsRejected ? "Bearer fresh" : "Bearer stale"] }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        Self.answer(try await t.sseAttempt(1), 401)
        Self.answer(try await t.sseAttempt(2), 503, body: "maintenance")
        await t.waitOutTheBackoff()
        let third = try await t.sseAttempt(3)
        #expect(third.request.headers["Authorization"] == "Bearer stale", "a new streak asks afresh")
        third.respond()
        await rec.waitFor(3)
        #expect(rec.summary == "error(http_status,retry) error(http_status,retry) open(3)")
    }

    /// RFC 9110 §9.2.2: the idempotent methods are retried after a cut that may have reached
    /// the server; the others (whatever their case) are not, unless the configuration says so.
    @Test(arguments: [
        ("GET", true), ("get", true), ("HEAD", true), ("OPTIONS", true), ("PUT", true), ("DELETE", true),
        ("REPORT", true), ("TRACE", true), ("POST", false), ("post", false), ("PATCH", false), ("QUERY", false),
    ])
    func onlyIdempotentMethodsAreRepeated(_ method: String, repeated: Bool) async throws {
        let t = try EmbeddedClient { $0.method = method }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        #expect(first.request.method == method)
        first.reset()
        let events = await rec.waitFor(2)
        #expect(events.at(1)?.errorEvent?.error.code == (repeated ? .network : .requestNotRepeatable), "\(method)")
        #expect(events.at(1)?.errorEvent?.willRetry == repeated, "\(method)")
    }

    @Test func aFailingHeadersProviderStopsBeforeAnyConnection() async throws {
        struct Boom: Error {}
        let t = try EmbeddedClient { $0.headersProvider = { _ in throw Boom() } }
        let rec = EventRecorder(t.client)
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(unauthorized,stop)")
        #expect(t.connectionCount == 0)
    }

    @Test func aHeadersProviderNetworkErrorIsRetried() async throws {
        let failures = LockedValue(1)
        let t = try EmbeddedClient {
            $0.headersProvider = { _ in
                if failures.withLock({ f in defer { f -= 1 }; return f > 0 }) {
                    throw RealtimeError(.network, detail: "token endpoint unreachable")
                }
                return ["Authorization": "Bearer ok"]
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await rec.waitFor(1)
        #expect(rec.summary == "error(network,retry)")
        #expect(t.connectionCount == 0)
        await t.waitOutTheBackoff()
        await t.network.waitForTransport(0)  // attempt 2 makes the first connection
        let first = try #require(t.sse(0))
        #expect(first.request.attempt == 2 && first.request.headers["Authorization"] == "Bearer ok")
    }

    @Test func aSlowConsumersBackPressurePausesTheTransferAndLosesNothing() async throws {
        let t = try EmbeddedClient { $0.eventBufferCapacity = 4 }
        defer { t.client.close() }
        var it = t.client.events.makeAsyncIterator()
        let first = try await t.openedSSE()
        // The consumer reads nothing: the client's buffer (4) fills and the transfer is paused.
        var sent = 0
        while !first.paused, sent < 64 {
            first.event("\(sent)", id: "\(sent)")
            sent += 1
        }
        #expect(first.paused && sent <= 4, "paused once the consumer's buffer is full (\(sent) sent)")
        for i in sent..<64 { first.event("\(i)", id: "\(i)") }  // held by the server, not dropped
        #expect(await it.next()?.short == "open(1)")
        for i in 0..<64 {
            t.run()  // the consumer's progress queued the unpause
            if first.paused { first.pump() }
            #expect(await it.next()?.short == "event(\(i))")
        }
        #expect(!first.paused, "the transfer reads again once the consumer caught up")
    }

    @Test func theCircuitBreakerSaysSoAndWaitsTheCoolDown() async throws {
        let t = try EmbeddedClient { $0.reconnect.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60)) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        Self.answer(try await t.sseAttempt(1), 500)
        await t.waitOutTheBackoff()
        Self.answer(try await t.sseAttempt(2), 500)
        let events = await rec.waitFor(2)
        let open = try #require(events.at(1)?.errorEvent)
        #expect(open.error.code == .circuitOpen && open.willRetry && open.retryIn == .seconds(60))
        #expect(t.client.statistics.errorsByClass == [.http: 2], "circuit_open counts under its cause's class")
        await t.waitForTheBackoff()
        t.advance(by: .seconds(59))
        #expect(t.connectionCount == 2, "the cool-down still runs")
        t.advance(by: .seconds(1))
        _ = try await t.sseAttempt(3)
    }

    @Test func theStatisticsCountAttemptsMessagesBytesAndErrors() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a", id: "1")
        first.event("bé", id: "2")
        first.reset()
        await rec.waitFor(5)
        await t.waitOutTheBackoff()
        Self.answer(try await t.sseAttempt(2), 503)
        await rec.waitFor(6)
        let s = t.client.statistics
        #expect(s.attempts == 2 && s.reconnects == 1 && s.connections == 1 && s.messages == 2)
        #expect(s.bytes == 4, "payload bytes: 1 + 3 (UTF-8)")
        #expect(s.errorsByClass == [.network: 1, .http: 1])
    }

    @Test func aSharedRetryBudgetDelaysTheReconnect() async throws {
        let budget = RetryBudget(burst: 1, perSecond: 0.1, clock: ManualClock())
        _ = budget.reserve()  // another client used the burst
        let t = try EmbeddedClient {
            $0.backoff = .immediate
            $0.retryBudget = budget
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        #expect(first.request.attempt == 1, "a first connection is not limited")
        first.reset()
        #expect(await rec.waitFor(1).at(0)?.errorEvent?.retryIn == .seconds(10), "the budget's turn, not the backoff's 100 ms")
        await t.waitForTheBackoff()
        t.advance(by: .milliseconds(9999))
        #expect(t.connectionCount == 1)
        t.advance(by: .milliseconds(1))
        _ = try await t.sseAttempt(2)
    }
}
#endif

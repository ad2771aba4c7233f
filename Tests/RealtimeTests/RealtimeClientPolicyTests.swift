import Foundation
import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// Backoff, server hints, attempt limits, POST safety, credentials and back-pressure,
/// through the client.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientPolicyTests {
    @Test func postIsNotRepeatedAfterADrop() async throws {
        let t = try TestClient { $0 = .llm(body: Array("{\"prompt\":\"hi\"}".utf8)) ; $0.backoff = .exponential(jitter: .none) }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.method == "POST")
        #expect(first.request.body == Array("{\"prompt\":\"hi\"}".utf8))
        first.open()
        first.message("tok")
        first.fail(RealtimeError(.network))
        await rec.waitUntilFinished()
        #expect(rec.summary == "open(1) event(tok) error(request_not_repeatable,stop) closed(final)")
        #expect(t.factory.count == 1)
    }

    /// An LLM request answered 429 or 500 reports the answer (status, body, Retry-After),
    /// not a refusal to repeat it; the request was sent once.
    @Test(arguments: [429, 500])
    func finiteRequestAnsweredWithAnErrorReportsTheStatus(_ status: Int) async throws {
        let t = try TestClient { $0 = .llm(body: [1]); $0.backoff = .exponential(jitter: .none) }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.fail(.httpStatus(status, bodyExcerpt: "{\"error\":\"slow down\"}", retryAfter: .seconds(7)))
        await rec.waitUntilFinished()
        let e = try #require(rec.events.first?.errorEvent)
        #expect(e.error.code == .httpStatus && e.error.status == status && !e.willRetry)
        #expect(e.error.bodyExcerpt == "{\"error\":\"slow down\"}" && e.error.retryAfter == .seconds(7))
        #expect(t.factory.count == 1)
        #expect(t.client.statistics.errorsByClass == [.http: 1])
    }

    @Test func retriesExhaustedKeepsItsCause() async throws {
        let t = try TestClient { $0.reconnect = .limited(maxAttempts: 2) }
        let rec = EventRecorder(t.client)
        try #require(await t.factory.transport(0)).fail(.httpStatus(503, bodyExcerpt: "maintenance", retryAfter: .seconds(1)))
        await t.advance(by: .seconds(1))
        try #require(await t.factory.transport(1)).fail(.httpStatus(503, bodyExcerpt: "maintenance", retryAfter: .seconds(1)))
        await rec.waitUntilFinished()
        let last = try #require(rec.events.last?.errorEvent?.error)
        #expect(last.code == .retriesExhausted)
        #expect(last.underlying?.code == .httpStatus && last.underlying?.status == 503)
        #expect(last.underlying?.bodyExcerpt == "maintenance" && last.underlying?.retryAfter == .seconds(1))
        #expect(t.client.statistics.errorsByClass == [.http: 2], "counted as the cause's class")
    }

    @Test func postIsSentAgainWhenItNeverLeft() async throws {
        let t = try TestClient { $0.method = "POST"; $0.body = [1] }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.fail(RealtimeError(.network, detail: "connection refused"), delivered: false)
        await rec.waitFor(1)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.body == [1])
    }

    @Test func repeatablePostIsSentAgain() async throws {
        let t = try TestClient { $0.method = "POST"; $0.body = [1]; $0.requestIsRepeatable = true }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(RealtimeError(.network))
        await rec.waitFor(3)
        await t.advance(by: .seconds(1))
        #expect(await t.factory.transport(1) != nil)
    }

    @Test func maxAttemptsGivesUp() async throws {
        let t = try TestClient { $0.reconnect = .limited(maxAttempts: 3) }
        let rec = EventRecorder(t.client)
        for i in 0..<3 {
            let transport = try #require(await t.factory.transport(i))
            transport.fail(.httpStatus(503))
            if i < 2 { await t.advance(by: .seconds(1 << i)) }
        }
        await rec.waitUntilFinished()
        let errors = rec.events.compactMap(\.errorEvent)
        #expect(errors.map(\.retryIn) == [.seconds(1), .seconds(2), nil])
        #expect(errors.map(\.attempt) == [1, 2, 3])
        let last = try #require(errors.last)
        #expect(last.error.code == .retriesExhausted && !last.willRetry && last.error.status == 503)
        #expect(t.factory.count == 3)
        #expect(t.clock.sleeperCount == 0)
    }

    @Test func sseRetryFieldSetsTheDelay() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.emit(.retryHint(.milliseconds(5000)))
        first.fail(RealtimeError(.network))
        let events = await rec.waitFor(3)
        #expect(events.at(1)?.errorEvent?.retryIn == .seconds(5))
        await t.advance(by: .milliseconds(4999))
        #expect(t.clock.sleeperCount == 1, "not before the server's delay")
        #expect(t.factory.count == 1)
        t.clock.advance(by: .milliseconds(1))
        #expect(await t.factory.transport(1) != nil)
    }

    @Test func retryAfterBeyondTheMaximumIsBounded() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        try #require(await t.factory.transport(0)).fail(.httpStatus(429, retryAfter: .seconds(3600)))
        #expect(await rec.waitFor(1).at(0)?.errorEvent?.retryIn == .seconds(30), "the configured maximum bounds the server")
    }

    @Test func retryAfterIsHonoured() async throws {
        let t = try TestClient { $0.backoff.maximumServerDelay = .seconds(3600) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.fail(.httpStatus(429, retryAfter: .seconds(120)))
        let events = await rec.waitFor(1)
        #expect(events.at(0)?.errorEvent?.retryIn == .seconds(120))
        await t.advance(by: .seconds(119))
        #expect(t.clock.sleeperCount == 1, "the timer still waits")
        #expect(t.factory.count == 1)
        t.clock.advance(by: .seconds(1))
        #expect(await t.factory.transport(1) != nil)
    }

    @Test func stableConnectionResetsTheBackoff() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        var t0 = try #require(await t.factory.transport(0))
        t0.fail(RealtimeError(.network))
        await t.advance(by: .seconds(1))
        t0 = try #require(await t.factory.transport(1))
        t0.fail(RealtimeError(.network))
        await t.advance(by: .seconds(2))
        t0 = try #require(await t.factory.transport(2))
        t0.open()
        await rec.waitFor(3)
        t.clock.advance(by: .seconds(10))  // stable (resetAfter 10 s)
        t0.fail(RealtimeError(.network))
        let events = await rec.waitFor(5)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(2), .seconds(1)])
        #expect(events.last?.closeEvent?.willReconnect == true)
    }

    @Test func unauthorizedRefreshesCredentialsOnce() async throws {
        let calls = LockedValue<[RealtimeClient.HeadersContext]>([])
        let t = try TestClient {
            $0.headers = ["Authorization": "Bearer static", "X-App": "1"]
            $0.headersProvider = { ctx in
                calls.withLock { $0.append(ctx) }
                return ["Authorization": ctx.credentialsRejected ? "Bearer fresh" : "Bearer stale"]
            }
        }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.headers["Authorization"] == "Bearer stale")
        #expect(first.request.headers["X-App"] == "1")
        #expect(first.request.headers.values(for: "Authorization").count == 1)
        first.fail(.httpStatus(401))
        // Retried at once: no backoff timer.
        let second = try #require(await t.factory.transport(1))
        #expect(t.clock.sleeperCount == 0)
        #expect(second.request.headers["Authorization"] == "Bearer fresh")
        second.fail(.httpStatus(401))
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(http_status,retry) error(unauthorized,stop)")
        #expect(calls.withLock { $0.map(\.credentialsRejected) } == [false, true])
        #expect(rec.events.at(0)?.errorEvent?.retryIn == .zero)
    }

    /// RFC 9110 §9.2.2: the idempotent methods are retried after a cut that may have reached
    /// the server; the others (whatever their case) are not, unless the configuration says so.
    @Test(arguments: [
        ("GET", true), ("get", true), ("HEAD", true), ("OPTIONS", true), ("PUT", true), ("DELETE", true),
        ("REPORT", true), ("TRACE", true), ("POST", false), ("post", false), ("PATCH", false), ("QUERY", false),
    ])
    func onlyIdempotentMethodsAreRepeated(_ method: String, repeated: Bool) async throws {
        let t = try TestClient { $0.method = method; $0.backoff = .exponential(jitter: .none) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(RealtimeError(.network))
        let events = await rec.waitFor(2)
        #expect(events.at(1)?.errorEvent?.error.code == (repeated ? .network : .requestNotRepeatable), "\(method)")
        #expect(events.at(1)?.errorEvent?.willRetry == repeated, "\(method)")
    }

    @Test(arguments: [0, -1])
    func anEventBufferBelowOneIsRejected(_ capacity: Int) {
        var configuration = RealtimeClient.Configuration()
        configuration.eventBufferCapacity = capacity
        let error = #expect(throws: RealtimeError.self) {
            try RealtimeClient(url: URL(string: "http://example.com/s")!, configuration: configuration)
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test(arguments: [Duration.zero, .milliseconds(99)])
    func backoffBelowTheFloorIsRejected(_ initial: Duration) {
        var configuration = RealtimeClient.Configuration()
        configuration.backoff = .exponential(initial: initial)
        let error = #expect(throws: RealtimeError.self) {
            try RealtimeClient(url: URL(string: "http://example.com/s")!, configuration: configuration)
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func failingHeadersProviderStops() async throws {
        struct Boom: Error {}
        let t = try TestClient { $0.headersProvider = { _ in throw Boom() } }
        let rec = EventRecorder(t.client)
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(unauthorized,stop)")
        #expect(t.factory.count == 0)
    }

    @Test func headersProviderNetworkErrorIsRetried() async throws {
        let failures = LockedValue(1)
        let t = try TestClient {
            $0.headersProvider = { _ in
                if failures.withLock({ f in defer { f -= 1 }; return f > 0 }) {
                    throw RealtimeError(.network, detail: "token endpoint unreachable")
                }
                return ["Authorization": "Bearer ok"]
            }
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await rec.waitFor(1)
        #expect(rec.summary == "error(network,retry)")
        await t.advance(by: .seconds(1))
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.attempt == 2)
    }

    @Test func slowConsumerBackPressureReachesTheTransport() async throws {
        let t = try TestClient { $0.eventBufferCapacity = 4 }
        var it = t.client.events.makeAsyncIterator()
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        // The consumer reads nothing: the client's buffer (4) fills and the transport's
        // producer is told to pause at once (its messages are relayed straight into it).
        var sends = 0
        while first.pausedSends == 0, sends < 64 {
            first.message("\(sends)", id: "\(sends)")
            sends += 1
        }
        #expect(sends <= 4, "the producer must be told to pause once the consumer's buffer is full")
        // A producer that ignores the signal loses nothing either.
        for i in sends..<64 { first.message("\(i)", id: "\(i)") }
        #expect(first.demands == 0)
        // Draining resumes the flow, in order, and tells the producer to read again.
        #expect(await it.next()?.short == "open(1)")
        for i in 0..<64 {
            #expect(await it.next()?.short == "event(\(i))")
        }
        #expect(first.demands >= 1, "the paused producer must be told to resume")
    }

    @Test func circuitBreakerSaysSoAndWaitsTheCoolDown() async throws {
        let t = try TestClient { $0.reconnect.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60)) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.fail(.httpStatus(500))
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.fail(.httpStatus(500))
        let events = await rec.waitFor(2)
        let open = try #require(events.at(1)?.errorEvent)
        #expect(open.error.code == .circuitOpen && open.willRetry && open.retryIn == .seconds(60))
        await t.advance(by: .seconds(59))
        #expect(t.clock.sleeperCount == 1, "the cool-down still runs")
        #expect(t.factory.count == 2)
        t.clock.advance(by: .seconds(1))
        #expect(await t.factory.transport(2) != nil)
    }

    @Test func statisticsCountAttemptsMessagesAndErrors() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "1")
        first.message("bé", id: "2")
        first.fail(RealtimeError(.network))
        await rec.waitFor(5)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.fail(.httpStatus(503))
        await rec.waitFor(6)
        let s = t.client.statistics
        #expect(s.attempts == 2 && s.reconnects == 1 && s.connections == 1 && s.messages == 2)
        #expect(s.bytes == 4, "payload bytes: 1 + 3 (UTF-8)")
        #expect(s.errorsByClass == [.network: 1, .http: 1])
    }

    @Test func sharedRetryBudgetDelaysReconnects() async throws {
        let clock = ManualClock()
        let budget = RetryBudget(burst: 1, perSecond: 0.1, clock: clock)
        _ = budget.reserve()  // another client used the burst
        let t = try TestClient {
            $0.backoff = .immediate
            $0.retryBudget = budget
        }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        #expect(first.request.attempt == 1, "a first connection is not limited")
        first.fail(RealtimeError(.network))
        await rec.waitFor(1)
        // The client's own backoff is 100 ms, but the budget makes it wait its turn (10 s
        // on the budget's clock; the client sleeps on its own clock).
        await t.advance(by: .seconds(10))
        #expect(await t.factory.transport(1) != nil)
    }
}


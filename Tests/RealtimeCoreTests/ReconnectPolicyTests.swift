import RealtimeTestSupport
import Testing

@_spi(Transport) @testable import RealtimeCore

@Suite(.timeLimit(.minutes(1))) struct ReconnectPolicyTests {
    private func failed(_ error: RealtimeError, delivered: Bool = true) -> TransportEnd {
        TransportEnd(clean: false, error: error, requestWasDelivered: delivered)
    }
    private let ctx = ReconnectContext(attempt: 1, opened: true)

    @Test(arguments: [
        RealtimeError(.network), RealtimeError(.remoteClosed), RealtimeError(.connectTimeout),
        RealtimeError(.idleTimeout), RealtimeError(.dnsFailure), RealtimeError(.heartbeatTimeout),
        .httpStatus(500), .httpStatus(502), .httpStatus(503), .httpStatus(408), .httpStatus(429),
        .httpStatus(0), .httpStatus(99), .httpStatus(600), .httpStatus(999),
        .protocolViolation("masked frame"), RealtimeError(.invalidUTF8),
    ])
    func retriesWithBackoff(_ error: RealtimeError) {
        #expect(ReconnectPolicy.default.verdict(for: failed(error), context: ctx) == .backoff(retryAfter: nil))
    }

    @Test(arguments: [
        RealtimeError(.tls), RealtimeError(.invalidContentType), .httpStatus(400), .httpStatus(403),
        .httpStatus(404), .httpStatus(410), .httpStatus(302), RealtimeError(.redirect),
        RealtimeError(.handshake, detail: "bad accept"), RealtimeError(.handshake, status: 404),
        RealtimeError(.invalidConfiguration), RealtimeError(.unsupportedScheme), RealtimeError(.internal),
        RealtimeError(.lineTooLong), RealtimeError(.eventTooLarge), RealtimeError(.messageTooLarge),
    ])
    func stopsWithTheError(_ error: RealtimeError) {
        #expect(ReconnectPolicy.default.verdict(for: failed(error), context: ctx) == .stop(reason: error))
    }

    @Test func retryAfterIsPassedOn() {
        let e = RealtimeError.httpStatus(429, retryAfter: .seconds(7))
        #expect(ReconnectPolicy.default.verdict(for: failed(e), context: ctx) == .backoff(retryAfter: .seconds(7)))
    }

    @Test func unreachableWaitsForTheNetwork() {
        #expect(ReconnectPolicy.default.verdict(for: failed(RealtimeError(.unreachable)), context: ctx) == .waitForNetwork)
        // Even for a POST: nothing was sent while there is no network.
        let post = ReconnectContext(attempt: 1, opened: false, requestIsRepeatable: false)
        #expect(ReconnectPolicy.default.verdict(for: failed(RealtimeError(.unreachable)), context: post) == .waitForNetwork)
    }

    @Test func cleanEnd() {
        let end = TransportEnd(clean: true)
        #expect(ReconnectPolicy.default.verdict(for: end, context: ctx) == .backoff(retryAfter: nil))
        #expect(ReconnectPolicy.finite.verdict(for: end, context: ctx) == .stop(reason: nil))
        let streamEnded = failed(RealtimeError(.streamEnded))
        #expect(ReconnectPolicy.default.verdict(for: streamEnded, context: ctx) == .backoff(retryAfter: nil))
    }

    @Test func noContentStops() {
        let end = TransportEnd(clean: true, doNotReconnect: true)
        #expect(ReconnectPolicy.default.verdict(for: end, context: ctx) == .stop(reason: nil))
    }

    @Test func cancelledStops() {
        let end = failed(.cancelled)
        #expect(ReconnectPolicy.default.verdict(for: end, context: ctx) == .stop(reason: .cancelled))
    }

    @Test func unauthorizedRefreshesOnceThenStops() {
        let end = failed(.httpStatus(401))
        var c = ctx
        c.canRefreshCredentials = true
        #expect(ReconnectPolicy.default.verdict(for: end, context: c) == .refreshCredentials)
        c.requestIsRepeatable = false
        #expect(ReconnectPolicy.default.verdict(for: end, context: c) == .refreshCredentials, "a 401 POST was not acted on")
        c.canRefreshCredentials = false
        guard case .stop(let reason?) = ReconnectPolicy.default.verdict(for: end, context: c) else {
            Issue.record("expected stop")
            return
        }
        #expect(reason.code == .unauthorized && reason.status == 401)
    }

    @Test func postIsNotRepeatedAfterDelivery() {
        let post = ReconnectContext(attempt: 1, opened: true, requestIsRepeatable: false)
        guard case .stop(let reason?) = ReconnectPolicy.default.verdict(for: failed(RealtimeError(.network)), context: post) else {
            Issue.record("expected stop")
            return
        }
        #expect(reason.code == .requestNotRepeatable)
        #expect(reason.underlying == RealtimeError(.network), "the cause stays reachable")
        // Not delivered yet (connect refused): safe to send.
        #expect(ReconnectPolicy.default.verdict(for: failed(RealtimeError(.network), delivered: false), context: post)
            == .backoff(retryAfter: nil))
        // The clean end of a POST stream is the end of the reply.
        #expect(ReconnectPolicy.default.verdict(for: TransportEnd(clean: true), context: post) == .stop(reason: nil))
        // Opted in.
        var p = ReconnectPolicy.default
        p.repeatsNonIdempotentRequests = true
        #expect(p.verdict(for: failed(RealtimeError(.network)), context: post) == .backoff(retryAfter: nil))
        // A fatal error stays the reason, not requestNotRepeatable.
        #expect(ReconnectPolicy.default.verdict(for: failed(RealtimeError(.tls)), context: post) == .stop(reason: RealtimeError(.tls)))
    }

    /// A POST answered with an error status was answered: the answer is the reason.
    @Test(arguments: [429, 500, 503, 400])
    func postAnsweredWithAnErrorStatusReportsTheAnswer(_ status: Int) {
        let post = ReconnectContext(attempt: 1, opened: false, requestIsRepeatable: false)
        let answer = RealtimeError.httpStatus(status, bodyExcerpt: "{\"error\":\"busy\"}", retryAfter: .seconds(7))
        #expect(ReconnectPolicy.finite.verdict(for: failed(answer), context: post) == .stop(reason: answer))
    }

    @Test func wrappersKeepTheirCause() {
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let cause = RealtimeError.httpStatus(503, bodyExcerpt: "down", retryAfter: .seconds(2))
        let end = failed(cause)
        let once = ReconnectPolicy.limited(maxAttempts: 1)
        guard case .stop(let exhausted?) = once.decide(end, context: ctx, backoff: &backoff, using: &rng) else {
            Issue.record("expected to give up")
            return
        }
        #expect(exhausted.code == .retriesExhausted && exhausted.underlying == cause)
        #expect(exhausted.underlying?.bodyExcerpt == "down" && exhausted.underlying?.retryAfter == .seconds(2))
        var breaker = ReconnectPolicy.default
        breaker.circuitBreaker = CircuitBreaker(failureThreshold: 1, coolDown: .seconds(60))
        guard case .coolDown(_, let open) = breaker.decide(end, context: ctx, backoff: &backoff, using: &rng) else {
            Issue.record("expected a cool-down")
            return
        }
        #expect(open.code == .circuitOpen && open.underlying == cause)
    }

    @Test func optionsFlipProtocolAndLimitRows() {
        var p = ReconnectPolicy.default
        p.retriesAfterProtocolViolation = false
        p.retriesAfterLimitExceeded = true
        let violation = RealtimeError.protocolViolation("x")
        #expect(p.verdict(for: failed(violation), context: ctx) == .stop(reason: violation))
        #expect(p.verdict(for: failed(RealtimeError(.frameTooLarge)), context: ctx) == .backoff(retryAfter: nil))
    }

    @Test func neverStopsEverything() {
        #expect(ReconnectPolicy.never.verdict(for: failed(RealtimeError(.network)), context: ctx) == .stop(reason: RealtimeError(.network)))
        #expect(ReconnectPolicy.never.verdict(for: TransportEnd(clean: true), context: ctx) == .stop(reason: nil))
    }

    @Test func maxAttemptsGivesUp() {
        let policy = ReconnectPolicy.limited(maxAttempts: 3)
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let end = failed(RealtimeError(.network))
        var decisions: [ReconnectDecision] = []
        for attempt in 1...3 {
            let c = ReconnectContext(attempt: attempt, opened: false)
            decisions.append(policy.decide(end, context: c, backoff: &backoff, using: &rng))
        }
        #expect(decisions[0] == .retry(after: .seconds(1)))
        #expect(decisions[1] == .retry(after: .seconds(2)))
        guard case .stop(let reason?) = decisions[2] else {
            Issue.record("expected to give up")
            return
        }
        #expect(reason.code == .retriesExhausted)
    }

    @Test func aStableConnectionRestoresTheAttemptBudget() {
        let policy = ReconnectPolicy.limited(maxAttempts: 2)
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let end = failed(RealtimeError(.network))
        #expect(policy.decide(end, context: .init(attempt: 1, opened: false), backoff: &backoff, using: &rng) == .retry(after: .seconds(1)))
        // Attempt 2 stays up for a minute, then drops: the streak starts again.
        let stable = ReconnectContext(attempt: 2, opened: true, uptime: .seconds(60))
        #expect(policy.decide(end, context: stable, backoff: &backoff, using: &rng) == .retry(after: .seconds(1)))
    }

    /// A stable connection that drops is not an attempt of the new streak: `maxAttempts: n`
    /// allows n attempts after it, as it does from the start.
    @Test(arguments: [1, 2, 3])
    func aStableDropStartsAStreakOfFullLength(maxAttempts: Int) {
        let policy = ReconnectPolicy.limited(maxAttempts: maxAttempts)
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let end = failed(RealtimeError(.network))
        let stable = ReconnectContext(attempt: 1, opened: true, uptime: .seconds(60))
        #expect(policy.decide(end, context: stable, backoff: &backoff, using: &rng) == .retry(after: .seconds(1)))
        var retries = 0
        for attempt in 2...(maxAttempts + 1) {
            let decision = policy.decide(end, context: .init(attempt: attempt, opened: false), backoff: &backoff, using: &rng)
            guard case .retry = decision else {
                guard case .stop(let reason?) = decision else { Issue.record("\(decision)"); return }
                #expect(reason.code == .retriesExhausted)
                #expect((reason.detail ?? "").contains("\(maxAttempts) attempt(s)"), "\(reason.detail ?? "")")
                break
            }
            retries += 1
        }
        #expect(retries == maxAttempts - 1, "attempts after the drop: \(retries + 1)")
    }

    /// A reset for another reason (a restart, the network coming back) comes before a new
    /// attempt, which is the first of its streak.
    @Test func aResetBeforeAnAttemptCountsThatAttempt() {
        let policy = ReconnectPolicy.limited(maxAttempts: 1)
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let stable = ReconnectContext(attempt: 1, opened: true, uptime: .seconds(60))
        let end = failed(RealtimeError(.network))
        #expect(policy.decide(end, context: stable, backoff: &backoff, using: &rng) == .retry(after: .seconds(1)))
        backoff.reset()
        guard case .stop(let reason?) = policy.decide(end, context: .init(attempt: 2, opened: false), backoff: &backoff, using: &rng) else {
            Issue.record("expected to give up")
            return
        }
        #expect(reason.code == .retriesExhausted)
    }

    @Test func decideHonoursRetryAfter() {
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let end = failed(.httpStatus(503, retryAfter: .seconds(20)))
        #expect(ReconnectPolicy.default.decide(end, context: ctx, backoff: &backoff, using: &rng) == .retry(after: .seconds(20)))
    }

    @Test func waitingAndRefreshingSpendNoBackoff() {
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        var c = ctx
        c.canRefreshCredentials = true
        #expect(ReconnectPolicy.default.decide(failed(RealtimeError(.unreachable)), context: c, backoff: &backoff, using: &rng) == .waitForNetwork)
        #expect(ReconnectPolicy.default.decide(failed(.httpStatus(401)), context: c, backoff: &backoff, using: &rng) == .refreshCredentials)
        #expect(backoff.retry == 0)
    }

    @Test func circuitBreakerCoolsDownEveryThresholdFailures() {
        var policy = ReconnectPolicy.default
        policy.circuitBreaker = CircuitBreaker(failureThreshold: 3, coolDown: .seconds(300))
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        let end = failed(.httpStatus(503))
        var delays: [String] = []
        for attempt in 1...7 {
            switch policy.decide(end, context: .init(attempt: attempt, opened: false), backoff: &backoff, using: &rng) {
            case .retry(let d): delays.append("\(d.components.seconds)")
            case .coolDown(let d, let e):
                delays.append("cool \(d.components.seconds)")
                #expect(e.code == .circuitOpen && e.status == 503)
            default: delays.append("?")
            }
        }
        #expect(delays == ["1", "2", "cool 300", "8", "16", "cool 300", "30"])
    }

    /// Clean ends in a backoff streak (connections too short to reset it) count like failures:
    /// a server that closes every stream at once opens the circuit too.
    @Test func circuitBreakerCountsCleanEndsOfTheStreak() {
        var policy = ReconnectPolicy.default
        policy.circuitBreaker = CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60))
        var backoff = Backoff(policy: .exponential(jitter: .none))
        var rng = SeededGenerator(seed: 1)
        var outcomes: [String] = []
        for attempt in 1...4 {
            switch policy.decide(TransportEnd(clean: true), context: .init(attempt: attempt, opened: true), backoff: &backoff, using: &rng) {
            case .retry: outcomes.append("retry")
            case .coolDown(_, let e): outcomes.append("cool \(e.code) \(e.underlying == nil)")
            default: outcomes.append("?")
            }
        }
        #expect(outcomes == ["retry", "cool circuit_open true", "retry", "cool circuit_open true"])
    }
}


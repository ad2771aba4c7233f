/// When to connect again, by failure class (the table in the Errors article), the same for SSE and
/// WebSocket. A pure function of the attempt's `TransportEnd`, a `ReconnectContext` and
/// the `Backoff` state: no clock, no I/O.
///
/// | what happened | decision |
/// |---|---|
/// | network drop/reset, connect or idle timeout, DNS failure, heartbeat missed | retry with backoff |
/// | HTTP 5xx, 408, 429, or a status outside 100...599 (RFC 9110 §15) | retry with backoff; `Retry-After` is a floor for the delay |
/// | network unreachable | `ReconnectDecision/waitForNetwork` (no attempt spent) |
/// | clean end (SSE EOF, WebSocket close 1000, 1001 "going away" or 1012 "service restart") | retry with backoff if ``reconnectsAfterCleanEnd``, else orderly stop |
/// | WebSocket close with another code (`remoteClosed`; 1013 "try again later" and 1014 "bad gateway" included, like a 503 or 502) | retry with backoff |
/// | SSE HTTP 204 (`TransportEnd.doNotReconnect`) | orderly stop |
/// | WebSocket close with a code in ``finalCloseCodes`` (an application protocol's "do not come back") | stop with `remoteClosed` |
/// | HTTP 401 | `ReconnectDecision/refreshCredentials` once if possible, else stop (`unauthorized`) |
/// | other 4xx, other statuses, bad redirect, bad handshake | stop with the error |
/// | wrong `Content-Type`, TLS refusal (`tls`; a reset or close during the handshake is `network`), configuration error | stop with the error |
/// | protocol violation from the server | retry with backoff if ``retriesAfterProtocolViolation`` (default) |
/// | size limit exceeded | stop unless ``retriesAfterLimitExceeded`` (the same event would come back on resume) |
/// | cancelled (`close()`) | stop at once |
/// | request not repeatable (POST) and it was delivered | stop with `requestNotRepeatable`, the failure as its ``RealtimeError/underlying`` (clean end: orderly stop) |
/// | request not repeatable (POST) answered with an error status (429, 5xx) | stop with that `httpStatus` error (status, body excerpt, `Retry-After`): the request was answered, nothing is repeated |
/// | ``maxAttempts`` consecutive attempts without a stable connection | stop with `retriesExhausted` (the last failure as its ``RealtimeError/underlying``) |
/// | every ``CircuitBreaker/failureThreshold`` consecutive failures (when ``circuitBreaker`` is set) | `ReconnectDecision/coolDown(after:error:)` |
public struct ReconnectPolicy: Sendable, Hashable {
    /// Consecutive attempts (the first connection included) allowed without reaching a
    /// stable connection (`BackoffPolicy.resetAfter`); nil means unlimited (default).
    /// A stable connection that drops is not one of them: the attempts after it are a new
    /// streak of up to `maxAttempts`. Waiting for the network and credential refreshes spend
    /// no attempt.
    public var maxAttempts: Int?
    /// Reconnect (with `Last-Event-ID`) after a clean end of stream or a normal WebSocket
    /// close. Default true; set false for finite streams such as LLM replies.
    public var reconnectsAfterCleanEnd: Bool
    /// Re-send a request that is not marked repeatable (a POST) after it reached the server.
    /// Default false: a blind re-POST can repeat a side effect (and bill an LLM call twice).
    public var repeatsNonIdempotentRequests: Bool
    /// Retry after the server broke the protocol. Default true (the connection is closed with
    /// the right code first).
    public var retriesAfterProtocolViolation: Bool
    /// Retry after a size limit was exceeded. Default false: on resume the same oversized event
    /// would arrive again, in a loop.
    public var retriesAfterLimitExceeded: Bool
    /// Whether reconnecting happens at all. `false` makes every end final.
    public var isEnabled: Bool
    /// Long pauses after many consecutive failures. Default nil (off): the backoff cap alone
    /// paces retries.
    public var circuitBreaker: CircuitBreaker?
    /// WebSocket close codes the server sends to say "do not come back" in the protocol on top
    /// (`graphql-transport-ws` 4403 Forbidden, 4400 Bad Request): a close with one of them
    /// stops the client with `remote_closed` (the code in ``RealtimeError/closeCode``) instead
    /// of reconnecting. Only a code the server sent counts (RFC 6455 §7.1.5). Default empty.
    public var finalCloseCodes: Set<UInt16> = []

    /// A reconnect policy; every parameter has the documented default.
    public init(
        maxAttempts: Int? = nil, reconnectsAfterCleanEnd: Bool = true,
        repeatsNonIdempotentRequests: Bool = false, retriesAfterProtocolViolation: Bool = true,
        retriesAfterLimitExceeded: Bool = false, isEnabled: Bool = true, circuitBreaker: CircuitBreaker? = nil
    ) {
        precondition(maxAttempts.map { $0 >= 1 } ?? true, "ReconnectPolicy.maxAttempts must be >= 1")
        self.maxAttempts = maxAttempts
        self.reconnectsAfterCleanEnd = reconnectsAfterCleanEnd
        self.repeatsNonIdempotentRequests = repeatsNonIdempotentRequests
        self.retriesAfterProtocolViolation = retriesAfterProtocolViolation
        self.retriesAfterLimitExceeded = retriesAfterLimitExceeded
        self.isEnabled = isEnabled
        self.circuitBreaker = circuitBreaker
    }

    /// Reconnect forever with backoff, after failures and clean ends.
    public static let `default` = ReconnectPolicy()
    /// Never reconnect: one connection, then stop.
    public static let never = ReconnectPolicy(isEnabled: false)
    /// A finite stream (an LLM reply): retry failures, but a clean end is the end.
    public static let finite = ReconnectPolicy(reconnectsAfterCleanEnd: false)

    /// At most `n` consecutive attempts (the first included).
    public static func limited(maxAttempts n: Int) -> ReconnectPolicy {
        ReconnectPolicy(maxAttempts: n)
    }

    /// What an ended attempt means, before any delay is computed.
    package enum Verdict: Sendable, Hashable {
        /// Retry after backoff; `retryAfter` is the server's floor for this delay.
        case backoff(retryAfter: Duration?)
        case waitForNetwork
        case refreshCredentials
        case stop(reason: RealtimeError?)
    }

    /// Classifies an ended attempt by the failure-class table (no delay, no attempt counting).
    package func verdict(for end: TransportEnd, context: ReconnectContext) -> Verdict {
        if let error = end.error, error.code == .cancelled { return .stop(reason: error) }
        if end.doNotReconnect { return .stop(reason: nil) }
        if let code = end.code, finalCloseCodes.contains(code) {
            var e = RealtimeError(.remoteClosed, detail: "the server closed with \(code), final for this policy", closeCode: code)
            e.underlying = end.error
            return .stop(reason: e)
        }

        let verdict: Verdict
        var nonRepeatableMatters = true
        if let error = end.error, error.code != .streamEnded {
            verdict = classify(error, context: context)
            // A 401 means the server did not act on the request: refreshing and sending it
            // again is safe even for a POST.
            if case .refreshCredentials = verdict { nonRepeatableMatters = false }
        } else {
            // Orderly end: SSE EOF after a complete event, WebSocket normal close.
            guard reconnectsAfterCleanEnd else { return .stop(reason: nil) }
            if !context.requestIsRepeatable && !repeatsNonIdempotentRequests {
                // The reply is complete; the end of a finite POST is not an error.
                return .stop(reason: nil)
            }
            verdict = .backoff(retryAfter: nil)
        }

        guard isEnabled else {
            if case .stop = verdict { return verdict }
            return .stop(reason: end.error)
        }
        if nonRepeatableMatters, !context.requestIsRepeatable, !repeatsNonIdempotentRequests,
            end.requestWasDelivered, verdict != .waitForNetwork
        {
            if case .stop = verdict { return verdict }
            // The server answered the request with an error status (a 429, a 503): it was
            // answered, there is nothing to repeat. Report the answer itself, with its
            // status, body and Retry-After, and let the application decide.
            if let answer = end.error, answer.code == .httpStatus { return .stop(reason: answer) }
            var e = RealtimeError(.requestNotRepeatable, detail: "not repeated after \(end.error?.code.description ?? "end of stream")")
            e.status = end.error?.status
            e.underlying = end.error
            return .stop(reason: e)
        }
        return verdict
    }

    private func classify(_ error: RealtimeError, context: ReconnectContext) -> Verdict {
        switch error.failureClass {
        case .network, .timeout, .dns, .heartbeat, .openHook:
            return .backoff(retryAfter: error.retryAfter)
        case .unreachable:
            return .waitForNetwork
        case .http:
            guard let status = error.status else { return .stop(reason: error) }
            switch status {
            case 401:
                if context.canRefreshCredentials { return .refreshCredentials }
                var e = RealtimeError(.unauthorized, detail: "server answered 401", status: 401)
                e.bodyExcerpt = error.bodyExcerpt
                e.underlying = error
                return .stop(reason: e)
            case 408, 429, 500...599, ..<100, 600...:
                // RFC 9110 §15: a status outside 100...599 is invalid and handled as a 5xx.
                return .backoff(retryAfter: error.retryAfter)
            default:
                return .stop(reason: error)
            }
        case .protocol:
            return retriesAfterProtocolViolation ? .backoff(retryAfter: nil) : .stop(reason: error)
        case .limit:
            return retriesAfterLimitExceeded ? .backoff(retryAfter: nil) : .stop(reason: error)
        case .endOfStream:
            return .backoff(retryAfter: nil)
        default:
            // tls, content, configuration, auth, policy, cancelled, internal.
            return .stop(reason: error)
        }
    }

    /// The full decision: classifies the end, applies the stable-connection reset and the
    /// attempt limit, and draws the delay from `backoff`.
    ///
    /// `backoff` advances only when the decision is to retry after a delay.
    package func decide<G: RandomNumberGenerator>(
        _ end: TransportEnd, context: ReconnectContext, backoff: inout Backoff, using rng: inout G
    ) -> ReconnectDecision {
        if context.opened { backoff.connectionEnded(after: context.uptime) }
        switch verdict(for: end, context: context) {
        case .stop(let reason):
            return .stop(reason: reason)
        case .waitForNetwork:
            return .waitForNetwork
        case .refreshCredentials:
            return .refreshCredentials
        case .backoff(let retryAfter):
            if let maxAttempts, backoff.attemptsInStreak >= maxAttempts {
                var e = RealtimeError(
                    .retriesExhausted,
                    detail: "gave up after \(backoff.attemptsInStreak) attempt(s); last: \(end.error?.code.description ?? "end of stream")")
                e.status = end.error?.status
                e.closeCode = end.error?.closeCode ?? end.code
                e.underlying = end.error
                return .stop(reason: e)
            }
            let delay = backoff.nextDelay(retryAfter: retryAfter, using: &rng)
            if let breaker = circuitBreaker, backoff.retry % breaker.failureThreshold == 0 {
                var e = RealtimeError(
                    .circuitOpen,
                    detail: "\(backoff.retry) consecutive failures; last: \(end.error?.code.description ?? "end of stream")")
                e.status = end.error?.status
                e.underlying = end.error
                return .coolDown(after: Swift.max(breaker.coolDown, delay), error: e)
            }
            return .retry(after: delay)
        }
    }
}

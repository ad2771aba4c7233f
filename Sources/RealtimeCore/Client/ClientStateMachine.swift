/// Every decision of `RealtimeClient`, sans-I/O: events in (start, attempt made / opened /
/// ended, messages, consumer progress, timers, network changes, suspend / resume / close),
/// actions out (connect with this plan, start a timer, emit this event, close the transport,
/// finish). Time is passed in (`now`: the client's clock, as a duration since the client
/// was made); randomness (backoff jitter) comes from the generator it is given.
///
/// It composes the pure policies: ``ReconnectPolicy`` (what an ended attempt means),
/// `Backoff` (how long to wait), ``CircuitBreaker``, and the shared ``RetryBudget``
/// through ``Effects/budget`` requests. It owns the
/// resume cursor (as the consumer's ``ResumeLedger`` reports it), the attempt counters, the reachability and suspension
/// rules and the client's statistics.
///
/// Guarantees (checked after every step by a seeded random-sequence test):
/// - at most one attempt in flight, and none while suspended, unreachable, closed or finished;
/// - every `closed` event pairs with the `open` before it; nothing is emitted after the
///   client finished or was closed;
/// - the cursor never moves back and never passes an event the consumer has not processed;
/// - every retry delay lies within the backoff policy's bounds (or is a server's
///   `Retry-After`, the circuit breaker's cool-down or a retry-budget slot).
///
/// Every entry point returns what the driver does next (``Effects``, or a result of its own
/// where the event has outcomes of its own: ``TransportMadeAction``, ``SendAction``, the
/// sequence number of ``messagesArrived(attempt:count:bytes:)``). A stale event (of an attempt
/// that is over, a withdrawn timer, an answer nobody waits for any more, anything after the
/// end) is ignored and says why (``Ignored``); an event that cannot happen is a
/// `preconditionFailure` (a driver bug, not a race).
///
/// Not thread-safe: the driver keeps it under one lock and performs its effects after
/// releasing that lock.
package struct ClientStateMachine: Sendable {
    package private(set) var configuration: Configuration
    var random: any RandomNumberGenerator & Sendable
    var phase: Phase = .idle {
        didSet { liveAttempt = phase.liveAttempt }
    }
    /// The number of the attempt in flight, 0 when none (the relay's fast check).
    private(set) var liveAttempt = 0
    var backoff: Backoff
    /// Paces retries after an `unreachable` failure that no monitor explains, spending no attempt.
    var networkBackoff: Backoff
    /// Sequence number of the last event emitted (0 before the first).
    package internal(set) var emitted: UInt64 = 0
    /// The consumer's progress, as last reported (see ``ResumeLedger``).
    package internal(set) var consumer: ConsumerProgress
    package internal(set) var statistics = ClientStatistics()
    /// Set by ``suspend(now:)``: no attempt until ``resume(now:)``.
    package internal(set) var suspended = false
    var network = NetworkView()
    var counters = AttemptCounters()
    var credentials = CredentialState()
    var nextTimerToken: UInt64 = 0
    /// The outbox (``SendPolicy/queue(maxMessages:maxBytes:timeout:)``).
    var sends = SendQueue()
    /// The last `error` or `closed` emitted said another attempt follows (see
    /// ``finalWord(_:)``).
    var promisedRetry = false
    /// The resume plan's view (``Configuration/resumes``): the last cursor received from the
    /// transport (the consumer's cursor once it caught up), and the resumes in a row that
    /// brought no new one.
    var resumeProgress = ResumeProgress()

    struct ResumeProgress: Sendable {
        var received: String?
        var stalledResumes = 0
    }

    /// What the monitor last said.
    struct NetworkView: Sendable {
        var down = false
        var pathGeneration: UInt64 = 0
        /// The current outage was reported to the consumer (one `unreachable` per outage).
        var announced = false
    }

    struct AttemptCounters: Sendable {
        /// Attempts made since the client started.
        var total = 0
        /// Attempts made since the last connection opened (or since the start).
        var sinceOpen = 0
    }

    struct CredentialState: Sendable {
        /// The last attempt got a 401: the provider must fetch fresh credentials.
        var rejected = false
        /// A refresh was already tried in this streak of 401s (a second 401 stops).
        var refreshedInStreak = false
    }

    package init(configuration: Configuration, random: any RandomNumberGenerator & Sendable) {
        self.configuration = configuration
        self.random = random
        self.backoff = Backoff(policy: configuration.backoff)
        self.networkBackoff = Backoff(policy: configuration.backoff)
        self.consumer = ConsumerProgress(processed: 0, cursor: configuration.cursor, cursorSequence: 0)
    }

    /// Attempts made since the client started (the last attempt's number).
    package var attempts: Int { counters.total }

    /// Whether a terminator ends the stream, set by the consumer before the client starts (an
    /// LLM reply's decoder knows its format's end marker better than the configuration).
    package mutating func useTerminator(_ present: Bool) {
        // A client closed before its first iteration never starts: nothing reads it.
        if case .closed = phase { return }
        precondition(phase.isIdle, "the terminator is chosen before the client starts")
        configuration.hasTerminator = present
    }

    /// Whether the client is done (finished by its policy or closed by the user).
    package var isTerminal: Bool {
        switch phase {
        case .finished, .closed: return true
        default: return false
        }
    }

    /// Whether messages of attempt `attempt` are still wanted (the relay's check).
    package func accepts(attempt: Int) -> Bool { attempt > 0 && liveAttempt == attempt }

    /// Whether `send` may go to the live transport: an attempt is started (a WebSocket send
    /// before the transport's handshake completes waits for it), its on-open hook is not
    /// running and the client is not ending it.
    package var acceptsSends: Bool {
        guard case .attempting(let a) = phase, a.ending == nil, a.hookFailure == nil else { return false }
        return !a.isPreparing && !a.hookRunning
    }

    /// The token of the armed timer, if any (the driver keeps only that timer's task).
    package var armedTimer: UInt64? {
        guard case .waiting(let w) = phase else { return nil }
        return w.timer
    }

    /// Numbers one event to emit.
    mutating func emit(_ event: ClientEvent) -> Effects {
        precondition(!isTerminal, "nothing is emitted after the client finished or was closed")
        notePromise(event)
        var e = Effects()
        e.emissions = [Emission(event: event, sequence: numberEmissions(1))]
        return e
    }

    /// Why an event for `attempt` (the relay's or the driver's number) is not for the attempt
    /// in flight: the client is done, or the attempt is over. An attempt never made is a
    /// driver bug.
    func staleness(ofAttempt attempt: Int) -> Ignored {
        precondition(attempt > 0 && attempt <= counters.total, "an event for attempt \(attempt), which was never made")
        return isTerminal ? .clientDone : .staleAttempt
    }

    /// Numbers `count` events about to be emitted; returns the first one's number.
    mutating func numberEmissions(_ count: Int) -> UInt64 {
        let first = emitted &+ 1
        emitted &+= UInt64(count)
        return first
    }

    /// Whether the consumer has processed everything emitted so far.
    var consumerCaughtUp: Bool { consumer.processed == emitted }
}

extension ClientStateMachine.Phase {
    var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }

    var liveAttempt: Int {
        if case .attempting(let a) = self { return a.number }
        return 0
    }
}

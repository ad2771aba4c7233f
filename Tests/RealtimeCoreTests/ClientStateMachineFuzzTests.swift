import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// Thousands of seeded random event sequences through the client's state machine, with its
/// guarantees checked after every step (see ``ClientStateMachine``). A failure prints the seed.
/// The second run favours the outbox: long-lived connections, sends and the transport's
/// answers, so that queued messages go out (and are refused) often.
@Suite(.timeLimit(.minutes(2))) struct ClientStateMachineFuzzTests {
    @Test(arguments: [false, true]) func randomSequencesKeepEveryInvariant(outboxFocus: Bool) async {
        for seed in 1...3000 as ClosedRange<UInt64> {
            await yieldToOtherTests(every: 2, seed)  // CPU-bound: a turn for other tests every ~3 ms
            var run = FuzzRun(seed: seed, outboxFocus: outboxFocus)
            for _ in 0..<150 {
                run.step()
                run.check()
                if run.failed || run.done { break }
            }
            if run.failed {
                Issue.record("seed \(seed): \(run.failure ?? "") after \(run.trace.suffix(12).joined(separator: " "))")
                return
            }
        }
    }
}

/// One random sequence: a random configuration, then random events applicable to the state
/// the harness is in (and some stale or redundant ones the machine must ignore).
struct FuzzRun {
    var rng: SplitMix64
    var h: ClientStateMachineHarness
    let configuration: ClientStateMachine.Configuration
    var networkDown = false
    var pathGeneration: UInt64 = 0
    var suspended = false
    var openPending = false
    var checkedEvents = 0
    var checkedPlans = 0
    var lastCursorSequence: UInt64 = 0
    var lastViewSequence: UInt64 = 0
    var trace: [String] = []
    var failure: String?
    var nextID = 0
    var lastBudgetSlot: Duration = .zero
    /// The server sent a `retry:`: delays may exceed the cap by the hint's jitter (25 %).
    var hinted = false
    /// The application asked for a restart since the last attempt was planned: the next
    /// retry may come at once (the only retry allowed under the backoff's floor).
    var restarted = false
    /// The cursor store answered (it answers once).
    var loadAnswered = false
    var done: Bool { h.terminated || (h.finished && h.handed == h.emitted.count) }
    var failed: Bool { failure != nil }

    /// Favours sends and long-lived connections over the rest (suspension, network changes).
    let outboxFocus: Bool

    init(seed: UInt64, outboxFocus: Bool = false) {
        self.outboxFocus = outboxFocus
        var rng = SplitMix64(seed: seed)
        let jitters: [Jitter] = [.none, .full, .equal, .decorrelated]
        let policies: [ReconnectPolicy] = [
            .default, .finite, .never, .limited(maxAttempts: 3),
            ReconnectPolicy(circuitBreaker: CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60))),
        ]
        var c = ClientStateMachine.Configuration(
            backoff: .exponential(initial: .milliseconds(Int64(100 + rng.next() % 900)), maximum: .seconds(30),
                                  jitter: jitters[Int(rng.next() % 4)]),
            reconnect: policies[Int(rng.next() % UInt64(policies.count))])
        if rng.next() % 4 == 0 { c.backoff.maximumServerDelay = .seconds(3600) }
        c.requestIsRepeatable = rng.next() % 4 != 0
        c.waitsForConsumer = rng.next() % 2 == 0
        c.monitorsNetwork = rng.next() % 2 == 0
        c.refreshesCredentials = rng.next() % 2 == 0
        c.sharesRetryBudget = rng.next() % 3 == 0
        c.loadsCursor = rng.next() % 4 == 0
        c.hasTerminator = rng.next() % 3 == 0
        c.cursor = rng.next() % 2 == 0 ? "start" : nil
        let timeouts: [Duration?] = [nil, .seconds(2), .seconds(10)]
        c.sendPolicy = rng.next() % 3 == 0
            ? .failFast
            : .queue(maxMessages: Int(1 + rng.next() % 6), maxBytes: 24, timeout: timeouts[Int(rng.next() % 3)])
        c.canSend = rng.next() % 8 != 0
        if outboxFocus {
            // Connections that live long enough for queues to drain: the default policy,
            // the outbox on, a WebSocket.
            c.reconnect = .default
            c.sendPolicy = .queue(maxMessages: Int(1 + rng.next() % 6), maxBytes: 24, timeout: timeouts[Int(rng.next() % 3)])
            c.canSend = true
        }
        configuration = c
        h = ClientStateMachineHarness(c, seed: rng.next())
        self.rng = rng
        trace.append("start")
        if c.monitorsNetwork {
            networkDown = rng.next() % 4 == 0
            h.start(network: NetworkStatus(reachability: networkDown ? .unreachable : .reachable))
        } else {
            h.start()
        }
        check()
    }

    mutating func chance(_ n: UInt64) -> Bool { rng.next() % n == 0 }

    /// Applies one random event.
    mutating func step() {
        var options: [(String, (inout FuzzRun) -> Void)] = []
        if h.loadRequested && !loadAnswered && !h.machine.isTerminal {
            options.append(("load", { r in r.loadAnswered = true; r.h.loaded(r.chance(2) ? "stored" : nil) }))
        }
        if h.preparing != nil {
            options.append(("make", { $0.h.make() }))
            options.append(("prepFail", { r in r.h.failToStart(r.randomError()) }))
        }
        switch h.transport {
        case .started:
            options.append(("open", { $0.h.open() }))
            options.append(("fail", { r in r.h.fail(r.randomError()) }))
        case .opened:
            options.append(("messages", { r in r.messages() }))
            options.append(("fail", { r in r.h.fail(r.randomError()) }))
            options.append(("cleanEnd", { $0.h.endCleanly() }))
            options.append(("hint", { r in r.hinted = true; r.h.hint(.milliseconds(Int64(r.rng.next() % 5000))) }))
            if configuration.hasTerminator { options.append(("terminator", { $0.h.terminator() })) }
        case .closing, .aborting:
            options.append(("ended", { $0.h.end() }))
        case .none:
            break
        }
        if h.timer != nil { options.append(("timer", { $0.h.fireTimer() })) }
        if h.pendingReserve != nil {
            options.append(("reserved", { r in
                let asked = r.h.pendingReserve ?? .zero
                r.h.reserved(asked + .milliseconds(Int64(r.rng.next() % 3000)))
            }))
        }
        if h.pendingAdmit {
            options.append(("admitted", { r in r.h.admitted(wait: r.chance(2) ? .zero : .milliseconds(Int64(r.rng.next() % 500))) }))
        }
        if !outboxFocus || chance(3) {
            options.append(("take", { $0.h.take() }))
            options.append(("processed", { $0.h.processed() }))
            options.append(("time", { r in r.h.now += .milliseconds(Int64(r.rng.next() % 2000)) }))
            options.append(("stale", { r in r.stale() }))
        }
        if !outboxFocus || chance(8) {
            options.append(("suspend", { r in r.suspended = r.suspended || !r.h.machine.isTerminal; r.h.suspend() }))
            options.append(("resume", { r in r.suspended = false; r.h.resume() }))
            options.append(("restart", { $0.restarted = true; $0.h.restart() }))
            if configuration.monitorsNetwork { options.append(("network", { r in r.network() })) }
        }
        sendOptions(&options)
        if chance(60) { options.append(("close", { $0.h.close() })) }
        if options.isEmpty { options.append(("time", { r in r.h.now += .milliseconds(Int64(r.rng.next() % 2000)) })) }
        let (name, apply) = options[Int(rng.next() % UInt64(options.count))]
        trace.append(name)
        apply(&self)
        if h.machine.isTerminal { suspended = false }
    }

    mutating func randomError() -> RealtimeError {
        let errors: [RealtimeError] = [
            RealtimeError(.network), .httpStatus(503, retryAfter: .seconds(Int64(rng.next() % 120))), .httpStatus(401),
            .httpStatus(404), RealtimeError(.unreachable), RealtimeError(.idleTimeout), .protocolViolation("x"),
            RealtimeError(.tls), .cancelled, RealtimeError(.streamEnded),
        ]
        return errors[Int(rng.next() % UInt64(errors.count))]
    }

    mutating func messages() {
        var ids: [String?] = []
        for _ in 0..<(1 + rng.next() % 4) {
            nextID += 1
            ids.append(chance(5) ? nil : "\(nextID)")
        }
        h.messages(ids)
    }

    mutating func network() {
        pathGeneration += 1
        let down = chance(2)
        networkDown = down
        h.network(NetworkStatus(reachability: down ? .unreachable : .reachable, pathGeneration: pathGeneration))
    }

    /// Events for attempts that are over and timers that were replaced: all ignored.
    mutating func stale() {
        let old = h.machine.attempts - 1
        let count = h.events.count
        if old > 0 {
            if h.machine.transportEnded(attempt: old, end: TransportEnd(clean: true), now: h.now).ignored == nil {
                fail("a superseded attempt's end was not ignored")
            }
            if h.machine.messagesArrived(attempt: old, count: 1, bytes: 1) != .drop { fail("a stale attempt's message was accepted") }
        }
        if h.machine.timerFired(0, now: h.now).ignored == nil { fail("a timer never armed was not ignored") }
        if h.events.count != count { fail("a stale event emitted something") }
    }

    mutating func fail(_ message: String) {
        if failure == nil { failure = message }
    }

    /// The guarantees, after every step.
    mutating func check() {
        checkOutbox()
        checkPlans()
        checkEvents()
        checkCursor()
        if h.machine.statistics.attempts > h.plans.count { fail("more transports started than attempts planned") }
        checkFinalEvent()
    }

    /// A finished stream's last event says that no attempt follows.
    private mutating func checkFinalEvent() {
        guard h.finished, let last = h.events.last else { return }
        switch last {
        case .error(let e) where !e.willRetry: break
        case .closed(let c) where !c.willReconnect: break
        default: fail("the stream finished on \(last.short)")
        }
    }

    private mutating func checkPlans() {
        guard h.plans.count > checkedPlans, let plan = h.plans.last else { return }
        checkedPlans = h.plans.count
        // The attempt was just planned: the gates must have been open.
        if suspended { fail("attempt \(plan.attempt) planned while suspended") }
        if configuration.monitorsNetwork && networkDown { fail("attempt \(plan.attempt) planned while unreachable") }
        if h.machine.isTerminal { fail("attempt planned after the end") }
    }

    private mutating func checkEvents() {
        while checkedEvents < h.emitted.count {
            let event = h.emitted[checkedEvents].event
            checkedEvents += 1
            switch event {
            case .open:
                if openPending { fail("a second open before closed") }
                openPending = true
                restarted = false
            case .closed:
                if !openPending { fail("closed without an open") }
                openPending = false
            case .error(let e):
                checkDelay(e)
            case .event:
                if !openPending { fail("a message outside a connection") }
            }
        }
    }

    private mutating func checkDelay(_ e: ErrorEvent) {
        guard e.willRetry else {
            if e.retryIn != nil { fail("retryIn without a retry") }
            return
        }
        guard let delay = e.retryIn else {
            if e.error.code != .unreachable { fail("a retry without a delay: \(e.error)") }
            return
        }
        let policy = configuration.backoff
        var ceiling = policy.serverDelayLimit
        let refreshes = e.error.underlying?.status == 401 || e.error.status == 401
        let floor = refreshes || restarted ? Duration.zero : BackoffPolicy.minimumDelay
        if let breaker = configuration.reconnect.circuitBreaker { ceiling = max(ceiling, breaker.coolDown) }
        if configuration.sharesRetryBudget { ceiling = ceiling + .seconds(3) }
        ceiling = max(ceiling, policy.maximum)
        if hinted { ceiling = ceiling * 1.25 }
        if delay < floor || delay > ceiling { fail("retry delay \(delay) outside [\(floor), \(ceiling)]") }
        restarted = false
    }

    private mutating func checkCursor() {
        let ledger = h.ledger
        let view = h.machine.consumer
        if ledger.cursorSequence < lastCursorSequence { fail("the cursor moved back") }
        lastCursorSequence = ledger.cursorSequence
        if view.cursorSequence > ledger.cursorSequence || view.processed > ledger.processed {
            fail("the machine knows of progress the consumer did not make")
        }
        if view.cursorSequence < lastViewSequence { fail("the machine's cursor moved back") }
        lastViewSequence = view.cursorSequence
        guard ledger.cursorSequence > 0 else { return }
        let processed = h.processedCount > 0 ? h.emitted[h.processedCount - 1].sequence : 0
        if ledger.cursorSequence > processed || ledger.processed > processed { fail("the cursor passed an unprocessed event") }
        guard let source = h.emitted.first(where: { $0.sequence == ledger.cursorSequence }) else {
            fail("the cursor's event was never emitted")
            return
        }
        if source.event.messageID != ledger.cursor { fail("the cursor is not its event's id") }
        if view.cursorSequence == ledger.cursorSequence, view.cursor != ledger.cursor { fail("the machine's cursor differs") }
    }
}

import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// Plays the driver for a ``ClientStateMachine``: keeps what the actions asked for (the
/// timer, the attempt being prepared, the transport's state, budget requests) and what was
/// emitted, and feeds events back. No I/O, no clock: `now` moves only when a test says so.
struct ClientStateMachineHarness {
    enum TransportState: Equatable { case none, started, opened, closing, aborting }

    var machine: ClientStateMachine
    var now: Duration = .zero
    /// Every event emitted, in order, with its sequence number.
    var emitted: [(sequence: UInt64, event: ClientEvent)] = []
    var finished = false
    var terminated = false
    var timer: (token: UInt64, deadline: Duration)?
    /// The attempt the machine asked to prepare (`connect`) and not yet answered.
    var preparing: ClientStateMachine.ConnectPlan?
    /// Every `connect` plan, in order.
    var plans: [ClientStateMachine.ConnectPlan] = []
    /// The attempt whose transport is started, and what the machine asked of it.
    var transportAttempt: Int?
    var transport: TransportState = .none
    /// The last command the machine gave the live transport.
    var lastTransportCommand: ClientStateMachine.TransportCommand?
    var reserveRequests: [Duration] = []
    var pendingReserve: Duration?
    var pendingAdmit = false
    var verifications: [Duration] = []
    var logs: [ClientLogRecord] = []
    var loadRequested = false
    var observing = true
    var workCancelled = false
    /// The on-open hooks the machine asked to run: attempt, cursor and deadline.
    var openHooks: [(attempt: Int, cursor: String?, deadline: Duration)] = []
    /// Messages held for the running on-open hook (the connection is in its handshake).
    var held: [String?] = []
    /// How many emitted events the consumer was handed, and how many it processed.
    var handed = 0
    var processedCount = 0
    var saved: [String] = []
    /// The consumer's side of the cursor, as the client keeps it.
    var ledger: ResumeLedger
    /// The machine asked for the consumer's progress (until the next attempt).
    var consumerAwaited = false
    /// The outbox as the driver sees it (see ClientStateMachineHarness+Send.swift).
    var outbox = HarnessOutbox()
    /// Why the machine ignored the events it ignored, in order.
    var ignored: [ClientStateMachine.Ignored] = []

    init(_ configuration: ClientStateMachine.Configuration = .init(), seed: UInt64 = 1) {
        machine = ClientStateMachine(configuration: configuration, random: SeededGenerator(seed: seed))
        ledger = ResumeLedger(cursor: configuration.cursor)
    }

    var events: [ClientEvent] { emitted.map(\.event) }
    var summary: String { events.map(\.short).joined(separator: " ") }
    var snapshot: ClientStateMachine.Snapshot { machine.snapshot }

    // MARK: Feeding events

    /// Performs one step's actions as the client's driver does: in the machine's order, the
    /// requests answered at once (budget, consumer progress, connect) after the others.
    mutating func apply(_ effects: ClientStateMachine.Effects) {
        if let reason = effects.ignored {
            #expect(effects.isEmpty, "an ignored event with effects")
            ignored.append(reason)
            return
        }
        let terminates = effects.terminate
        for action in effects.actions where !action.isAnsweredAtOnce {
            if case .emit(let e) = action {
                if !terminates { emit(e.event, sequence: e.sequence) }
                continue
            }
            perform(action)
        }
        performSend(effects)
        for action in effects.actions where action.isAnsweredAtOnce { answer(action) }
    }

    private mutating func perform(_ action: ClientStateMachine.Action) {
        switch action {
        case .finish: finished = true
        case .terminate: terminated = true
        case .log(let record): logs.append(record)
        case .loadCursor: loadRequested = true
        case .cancelTimer: timer = nil
        case .startTimer(let token, let deadline): timer = (token, deadline)
        case .transport(let command):
            lastTransportCommand = command
            switch command {
            case .close, .closeWith: if transportAttempt != nil { transport = .closing }
            case .abort: if transportAttempt != nil { transport = .aborting }
            case .verify(let within): verifications.append(within)
            }
        case .stopObservingNetwork: observing = false
        case .cancelWork: workCancelled = true
        case .openHook(let attempt, _, let cursor, let deadline):
            openHooks.append((attempt, cursor, deadline))
            held = []
        case .emit, .drainSends, .sendExpiry, .resolveSends, .budget, .awaitConsumer, .connect:
            break  // emitted above, the outbox's (performSend), or answered at once
        }
    }

    private mutating func answer(_ action: ClientStateMachine.Action) {
        switch action {
        case .budget(.reserveSlot(let after)):
            reserveRequests.append(after)
            pendingReserve = after
        case .budget(.admitAttempt):
            pendingAdmit = true
        case .awaitConsumer:
            consumerAwaited = true
            apply(machine.consumerProcessed(ledger.progress, now: now))
        case .connect(let plan):
            consumerAwaited = false
            #expect(preparing == nil && transportAttempt == nil, "a second attempt while one is in flight")
            preparing = plan
            plans.append(plan)
        default:
            Issue.record("\(action) is not answered at once")
        }
    }

    private mutating func emit(_ event: ClientEvent, sequence: UInt64) {
        #expect(!finished && !terminated, "emitted after the end: \(event.short)")
        #expect(sequence == (emitted.last?.sequence ?? 0) + 1, "sequence numbers in emission order")
        emitted.append((sequence, event))
    }

    mutating func start(network: NetworkStatus? = nil) { apply(machine.start(network: network, now: now)) }

    /// The cursor store answered: the consumer's ledger and the machine both learn it.
    mutating func loaded(_ cursor: String?) {
        ledger.load(cursor)
        apply(machine.cursorLoaded(cursor, now: now))
    }

    /// Answers the pending `connect`: the transport is made (and started if the machine says so).
    mutating func make() {
        guard let plan = preparing else { Issue.record("no attempt is being prepared"); return }
        preparing = nil
        switch machine.transportMade(attempt: plan.attempt, now: now) {
        case .start(let actions):
            transportAttempt = plan.attempt
            transport = .started
            apply(actions)
        case .discard(let actions):
            apply(actions)
        }
    }

    mutating func failToStart(_ error: RealtimeError) {
        guard let plan = preparing else { Issue.record("no attempt is being prepared"); return }
        preparing = nil
        apply(machine.attemptFailedToStart(attempt: plan.attempt, error: error, now: now))
    }

    mutating func open(status: Int = 200) {
        guard let attempt = transportAttempt else { Issue.record("no transport"); return }
        transport = .opened
        let info = ConnectionInfo(transport: .sse, url: URL(string: "http://example.test/s")!, status: status)
        apply(machine.transportOpened(attempt: attempt, info: info, now: now))
    }

    /// Messages as the relay passes them: numbered by the machine, emitted in order.
    mutating func messages(_ ids: [String?]) {
        guard let attempt = transportAttempt else { Issue.record("no transport"); return }
        // With a resume plan the relay tells the machine the last cursor received.
        let cursor = machine.configuration.resumes ? ids.compactMap { $0 }.last : nil
        switch machine.messagesArrived(attempt: attempt, count: ids.count, bytes: ids.count, cursor: cursor) {
        case .drop: return
        case .hold: held += ids
        case .deliver(let first): emitMessages(ids, from: first)
        }
    }

    private mutating func emitMessages(_ ids: [String?], from first: UInt64) {
        for (i, id) in ids.enumerated() {
            let message = Message(content: .text(id ?? "-"), type: "message", id: id)
            emit(.event(message), sequence: first + UInt64(i))
        }
    }

    /// The on-open hook of the live attempt returned (`error` nil) or failed: on success the
    /// messages held during the handshake are emitted after the `open`, as the driver does.
    mutating func finishHook(_ error: RealtimeError? = nil, attempt: Int? = nil) {
        guard let attempt = attempt ?? transportAttempt else { Issue.record("no transport"); return }
        switch machine.openHookFinished(attempt: attempt, error: error, now: now) {
        case .ignored(let reason):
            ignored.append(reason)
        case .failed(let effects):
            apply(effects)
            held = []
        case .ready(let effects):
            apply(effects)
            let released = held
            held = []
            if !released.isEmpty {
                emitMessages(released, from: machine.heldMessagesReleased(attempt: attempt, count: released.count))
            }
        }
    }

    mutating func hint(_ d: Duration) {
        guard let attempt = transportAttempt else { return }
        machine.retryHint(attempt: attempt, d)
    }

    mutating func terminator() {
        guard let attempt = transportAttempt else { Issue.record("no transport"); return }
        apply(machine.terminatorArrived(attempt: attempt, now: now))
    }

    /// The transport ends (after a `close`/`abort`, with `cancelled` unless told otherwise).
    mutating func end(_ end: TransportEnd? = nil) {
        guard let attempt = transportAttempt else { Issue.record("no transport"); return }
        let e = end ?? TransportEnd(clean: false, error: .cancelled)
        // A transport fails the sends waiting on it when it ends.
        refuseLive(attempt: attempt)
        transportAttempt = nil
        transport = .none
        apply(machine.transportEnded(attempt: attempt, end: e, now: now))
    }

    mutating func fail(_ error: RealtimeError, delivered: Bool = true) {
        end(TransportEnd(clean: false, error: error, requestWasDelivered: delivered))
    }

    mutating func endCleanly() { end(TransportEnd(clean: true)) }

    /// Moves time to the armed timer's deadline and fires it.
    mutating func fireTimer() {
        guard let t = timer else { Issue.record("no timer armed"); return }
        timer = nil
        now = max(now, t.deadline)
        apply(machine.timerFired(t.token, now: now))
    }

    mutating func reserved(_ delay: Duration) {
        #expect(pendingReserve != nil, "no reservation was asked for")
        pendingReserve = nil
        apply(machine.retrySlotReserved(delay, now: now))
    }

    mutating func admitted(wait: Duration, lateness: Duration = .milliseconds(2)) {
        #expect(pendingAdmit, "no admission was asked for")
        pendingAdmit = false
        apply(machine.attemptAdmitted(wait: wait, lateness: lateness, now: now))
    }

    mutating func network(_ status: NetworkStatus) { apply(machine.networkChanged(status, now: now)) }
    mutating func suspend() { apply(machine.suspend(now: now)) }
    mutating func resume() { apply(machine.resume(now: now)) }
    mutating func restart() { apply(machine.restart(now: now)) }
    mutating func close() { apply(machine.close()) }

    // MARK: The consumer

    /// The consumer takes the next emitted event (processing the one before), as `for await`
    /// does when one is buffered. Returns it, or nil when none is buffered.
    @discardableResult
    mutating func take() -> ClientEvent? {
        guard handed < emitted.count, !terminated else { return nil }
        let (sequence, event) = emitted[handed]
        handed += 1
        processedCount = handed - 1
        if let s = ledger.commit() { saved.append(s) }
        ledger.deliver(sequence, id: event.messageID)
        return event
    }

    /// The consumer processed everything it was handed (it waits for more): reported to the
    /// machine when it waits for the consumer, as the client does.
    mutating func processed() {
        processedCount = handed
        if let s = ledger.commit() { saved.append(s) }
        if consumerAwaited { apply(machine.consumerProcessed(ledger.progress, now: now)) }
    }

    /// Takes and processes everything emitted so far.
    mutating func drain() {
        while take() != nil {}
        processed()
    }
}

extension ClientStateMachine {
    /// Whether reconnects go through the shared retry budget (first connections do not).
    var needsBudget: Bool { configuration.sharesRetryBudget && counters.total > 0 }

    /// The timer armed for `token` fired.
    package mutating func timerFired(_ token: UInt64, now: Duration) -> Effects {
        precondition(token <= nextTimerToken, "timer \(token) fired, but it was never armed")
        guard case .waiting(var w) = phase, w.timer == token else {
            return .ignored(isTerminal ? .clientDone : .staleTimer)  // cancelled or replaced meanwhile
        }
        w.timer = nil
        phase = .waiting(w)
        return advance(now: now)
    }

    /// The shared retry budget booked a slot `delay` from now (after
    /// ``BudgetRequest/reserveSlot(after:)``).
    package mutating func retrySlotReserved(_ delay: Duration, now: Duration) -> Effects {
        switch phase {
        case .bookingRetrySlot(var verdict) where verdict.restartRequested:
            // A restart while the slot was booked: the slot is taken at once.
            verdict.delay = .zero
            backoff.reset()
            statistics.restarts += 1
            return .log(ClientLogRecord(.info, "restart requested")) + conclude(verdict, now: now)
        case .bookingRetrySlot(var verdict):
            verdict.delay = delay
            return conclude(verdict, now: now)
        case .waiting(var w) where w.booking == .inProgress:
            w.booking = .booked
            w.deadline = now + delay
            w.retryAt = now + delay
            phase = .waiting(w)
            var effects = Effects.nothing
            if delay > .zero {
                effects = .log(ClientLogRecord(.info, "waiting for the shared retry budget", ["retryIn": delay.millisecondsDescription]))
            }
            return effects + advance(now: now)
        default:
            return budgetAnswerIgnored()
        }
    }

    /// A budget answer nobody waits for: the client is done, or a suspension, restart or
    /// network loss withdrew the request. Before the first wait none was asked for.
    private func budgetAnswerIgnored() -> Effects {
        switch phase {
        case .idle, .loadingCursor: preconditionFailure("a retry-budget answer before the client asked for one")
        case .finished, .closed: return .ignored(.clientDone)
        case .waiting, .attempting, .bookingRetrySlot: return .ignored(.staleBudgetAnswer)
        }
    }

    /// The shared retry budget answered ``BudgetRequest/admitAttempt``: go now (`wait` zero) or
    /// hold the attempt back for `wait`; a hold that ends more than `lateness` late asks again.
    package mutating func attemptAdmitted(wait: Duration, lateness: Duration, now: Duration) -> Effects {
        guard case .waiting(var w) = phase, case .inProgress(let tries) = w.admission else { return budgetAnswerIgnored() }
        if wait <= .zero {
            w.admission = .done
        } else {
            w.admission = .held(tries: tries + 1, at: now + wait, lateness: lateness)
            w.deadline = now + wait
        }
        phase = .waiting(w)
        return advance(now: now)
    }

    /// Passes the gates between attempts in order (see ``Waiting``) and starts the next
    /// attempt when all are open; otherwise returns what the first closed gate needs.
    mutating func advance(now: Duration) -> Effects {
        guard case .waiting(var w) = phase else { return .nothing }
        var effects = Effects.nothing
        let unreachable = configuration.monitorsNetwork && network.down
        if suspended || unreachable {
            // Waiting for the app or the network: no timer runs, the slot is given back, and
            // the return connects at once (then books a slot again).
            effects = .flags(cancelTimer: w.timer != nil)
            phase = .waiting(interruptedWait(now: now))
            if unreachable && !suspended { effects += announceOutage() }
            return effects
        }
        network.announced = false
        switch w.booking {
        case .needed:
            w.booking = .inProgress
            phase = .waiting(w)
            return .budget(.reserveSlot(after: .zero))
        case .inProgress:
            return .nothing
        case .booked:
            break
        }
        if let deadline = w.deadline, now < deadline {
            if w.timer == nil {
                nextTimerToken &+= 1
                w.timer = nextTimerToken
                effects += .startTimer(token: nextTimerToken, deadline: deadline)
            }
            phase = .waiting(w)
            return effects
        }
        if w.timer != nil {
            w.timer = nil
            effects += .flags(cancelTimer: true)
        }
        w.deadline = nil
        phase = .waiting(w)
        // Exact resume: connect again only once the consumer has processed what it received.
        if configuration.waitsForConsumer && counters.total > 0 && !consumerCaughtUp {
            return effects + .flags(awaitConsumer: true)
        }
        if let admission = admit(&w, now: now) {
            phase = .waiting(w)
            return effects + admission
        }
        return effects + connect(now: now)
    }

    /// The admission gate: nil when passed, else the effects that wait for it.
    private func admit(_ w: inout Waiting, now: Duration) -> Effects? {
        switch w.admission {
        case .done:
            return nil
        case .pending(let tries):
            w.admission = .inProgress(tries: tries)
            return .budget(.admitAttempt)
        case .inProgress:
            return .nothing
        case .held(let tries, let at, let lateness):
            // The booked slots paced the plan; admission paces what is actually done. Woken
            // late again (a busy process): ask again, at most three times in all.
            if now - at <= lateness || tries >= 3 {
                w.admission = .done
                return nil
            }
            w.admission = .inProgress(tries: tries)
            return .budget(.admitAttempt)
        }
    }

    /// Starts the next attempt.
    private mutating func connect(now: Duration) -> Effects {
        counters.total += 1
        counters.sinceOpen += 1
        let resumes = configuration.resumes && consumer.cursor != nil
        let plan = ConnectPlan(
            attempt: counters.total, cursor: consumer.cursor, credentialsRejected: credentials.rejected, resumes: resumes)
        phase = .attempting(Attempt(number: counters.total, cursor: plan.cursor, resumes: resumes))
        return .log(ClientLogRecord(.debug, "connecting", ["attempt": "\(plan.attempt)"])) + .connect(plan)
    }

    /// The first time the client waits in an outage: one `unreachable` error, then silence.
    mutating func announceOutage() -> Effects {
        guard !network.announced else { return .nothing }
        network.announced = true
        statistics.networkWaits += 1
        let event = ErrorEvent(
            error: RealtimeError(.unreachable, detail: "waiting for the network"),
            willRetry: true, retryIn: nil, attempt: counters.total)
        return .log(ClientLogRecord(.notice, "waiting for the network", ["attempt": "\(counters.total)"])) + emit(.error(event))
    }

    /// The waiting state after an attempt that the client ended itself (suspend, network
    /// lost) or that never started: no delay, a fresh budget booking.
    func interruptedWait(now: Duration) -> Waiting {
        Waiting(deadline: nil, timer: nil, booking: needsBudget ? .needed : .booked,
                admission: needsBudget ? .pending(tries: 0) : .done, retryAt: now)
    }
}

extension ClientStateMachine {
    /// The reconnect policy's verdict on an ended attempt, its delay, and (with a shared retry
    /// budget) the booking of that delay before anything is reported.
    mutating func decide(_ a: Attempt, _ end: TransportEnd, uptime: Duration, now: Duration) -> Effects {
        var end = end
        // With a resume plan and a cursor, the next attempt sends the resume request, which
        // may be repeated even when the first request may not.
        let resumable = configuration.resumes && (resumeProgress.received ?? consumer.cursor) != nil
        if resumable {
            if let stalled = resumeStalled(a, end) {
                let verdict = Verdict(
                    attempt: a.number, opened: a.opened, end: end, error: stalled, counted: stalled,
                    reason: stalled, delay: nil, decidedAt: now)
                return conclude(verdict, now: now)
            }
            end = cutBeforeTerminator(end)
        }
        let context = ReconnectContext(
            attempt: a.number, opened: a.opened, uptime: uptime,
            requestIsRepeatable: configuration.requestIsRepeatable || resumable,
            canRefreshCredentials: configuration.refreshesCredentials && !credentials.refreshedInStreak)
        // A connection the client failed was closed with its own code (the peer's Close only
        // echoes it): that code is not the server's verdict.
        var judged = end
        if a.failure != nil { judged.code = nil }
        let decision = configuration.reconnect.decide(judged, context: context, backoff: &backoff, using: &random)
        var delay: Duration?
        var reason: RealtimeError?
        switch decision {
        case .retry(let d):
            delay = d
            credentials.rejected = false
        case .coolDown(let d, let e):
            delay = d
            reason = e
            credentials.rejected = false
        case .waitForNetwork:
            // No monitor explains it: probe at a backoff pace that spends no attempt.
            delay = networkBackoff.nextDelay(using: &random)
            credentials.rejected = false
        case .refreshCredentials:
            delay = .zero
            credentials.rejected = true
            credentials.refreshedInStreak = true
        case .stop(let r):
            reason = r ?? truncation(of: end)
        }
        let failure = end.error.flatMap { $0.code == .streamEnded ? nil : $0 }
        let verdict = Verdict(
            attempt: a.number, opened: a.opened, end: end, error: reason ?? failure,
            counted: failure ?? reason?.underlying ?? reason, reason: reason, delay: delay, decidedAt: now)
        if let delay, configuration.sharesRetryBudget {
            // Book the slot now, so `retryIn` is the real delay: the backoff, or later when
            // the budget shared with other clients is short.
            phase = .bookingRetrySlot(verdict)
            return .budget(.reserveSlot(after: delay))
        }
        return conclude(verdict, now: now)
    }

    /// An attempt that moved the cursor made progress: the backoff starts over (the next cut
    /// is resumed after the first delay, however many came before). A resumed attempt of a
    /// finite stream that ended with no new cursor is a stalled resume (a reply still queued on
    /// the server, say); returns the error that stops the client when
    /// ``Configuration/maxResumesWithoutProgress`` of them came in a row.
    private mutating func resumeStalled(_ a: Attempt, _ end: TransportEnd) -> RealtimeError? {
        if (resumeProgress.received ?? consumer.cursor) != a.cursor {
            resumeProgress.stalledResumes = 0
            backoff.healthyAttemptEnded()
            return nil
        }
        guard a.resumes, configuration.hasTerminator else { return nil }
        resumeProgress.stalledResumes += 1
        let count = resumeProgress.stalledResumes
        guard count >= configuration.maxResumesWithoutProgress else { return nil }
        var e = RealtimeError(.truncated, detail: "resumed \(count) times in a row without a new event")
        e.underlying = end.error
        return e
    }

    /// A finite stream that ended cleanly before its terminator, with a cursor to resume
    /// from, was cut: it is resumed (with backoff) instead of ending `truncated`.
    private func cutBeforeTerminator(_ end: TransportEnd) -> TransportEnd {
        guard configuration.hasTerminator, !end.doNotReconnect, end.error == nil || end.error?.code == .streamEnded
        else { return end }
        var cut = end
        cut.clean = false
        cut.error = RealtimeError(.truncated, detail: "the stream ended before its terminator; resuming from its cursor")
        return cut
    }

    /// A finite stream with a terminator that ended cleanly without it is incomplete.
    private func truncation(of end: TransportEnd) -> RealtimeError? {
        guard configuration.hasTerminator, !end.doNotReconnect, end.error == nil || end.error?.code == .streamEnded
        else { return nil }
        return RealtimeError(.truncated, detail: "the stream ended before its terminator")
    }

    /// Reports the verdict (`error`, then `closed` when the attempt had opened) and waits for
    /// the next attempt, or finishes.
    mutating func conclude(_ verdict: Verdict, now: Duration) -> Effects {
        if let counted = verdict.counted {
            statistics.errorsByClass[counted.failureClass, default: 0] += 1
        }
        var effects = Effects.log(record(verdict))
        if let error = verdict.error {
            let event = ErrorEvent(error: error, willRetry: verdict.willRetry, retryIn: verdict.delay, attempt: verdict.attempt)
            effects += emit(.error(event))
        }
        // `closed` always pairs with the `open` before it: an attempt that never opened (an
        // SSE 204 answering a resume, a refused handshake) emits no `closed`.
        if verdict.opened {
            let end = verdict.end
            let close = CloseEvent(clean: end.clean, code: end.code, reason: end.reason, willReconnect: verdict.willRetry)
            effects += emit(.closed(close))
        }
        guard let delay = verdict.delay else {
            effects += finalWord(verdict)
            phase = .finished(verdict.reason)
            return effects + .flags(finish: true, stopObservingNetwork: true) + failQueuedSends()
        }
        // The delay runs from the decision, not from when the consumer takes the events.
        let deadline = verdict.decidedAt + delay
        let budget = configuration.sharesRetryBudget
        phase = .waiting(Waiting(
            deadline: deadline, timer: nil, booking: .booked, admission: budget ? .pending(tries: 0) : .done,
            retryAt: deadline))
        return effects + advance(now: now)
    }

    /// The log record of a verdict: level by outcome, metadata without secrets.
    private func record(_ verdict: Verdict) -> ClientLogRecord {
        let end = verdict.end
        var m = ["attempt": "\(verdict.attempt)", "clean": "\(end.clean)"]
        if let error = verdict.reason ?? end.error {
            m["error"] = error.description
            m["class"] = error.failureClass.description
        }
        if let delay = verdict.delay { m["retryIn"] = delay.millisecondsDescription }
        if let code = end.code { m["closeCode"] = "\(code)" }
        if end.doNotReconnect { m["doNotReconnect"] = "true" }
        if verdict.willRetry {
            return ClientLogRecord(end.error == nil ? .info : .warning, "connection ended; will retry", m)
        }
        return ClientLogRecord(verdict.reason == nil ? .info : .error, "connection ended; stopping", m)
    }
}

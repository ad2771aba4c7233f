extension RealtimeClient {
    /// How one attempt ended, as the loop saw it.
    struct AttemptOutcome {
        var end: TransportEnd
        var opened: Bool
        var uptime: Duration
    }

    /// Mutable state of the loop that outlives one attempt.
    struct LoopState {
        var backoff: Backoff
        /// Paces retries while the network is unreachable without spending attempts.
        var networkBackoff: Backoff
        var attempt = 0
        /// The previous attempt got a 401 and the headers provider must refresh.
        var credentialsRejected = false
        /// A refresh was already tried in this streak of 401s.
        var refreshedInStreak = false
        /// The current network outage was already reported to the consumer.
        var announcedNetworkWait = false
        /// The next attempt's slot in the shared ``RetryBudget`` was booked when its delay was
        /// decided (and that delay, budget included, was reported as `retryIn`).
        var budgetBooked = false
    }

    /// The reconnect loop: one attempt at a time, until the policy stops or the task is
    /// cancelled by ``close()``.
    func run(random rng: inout any RandomNumberGenerator & Sendable) async {
        var loop = LoopState(
            backoff: Backoff(policy: configuration.backoff), networkBackoff: Backoff(policy: configuration.backoff))
        if configuration.lastEventID == nil, let store = configuration.cursorStore {
            let loaded = await store.load()
            delivery.withLock { d in
                if d.cursor == nil { d.cursor = loaded }
            }
        }
        let repeatable = configuration.resolvedRequestIsRepeatable
        let stopObservingNetwork = startObservingNetwork()
        defer { stopObservingNetwork?() }

        while !Task.isCancelled {
            // Storm control across clients: a reconnect waits for its turn in the shared budget
            // (on top of its own backoff). suspend()/resume() cut the wait short.
            // Reconnects whose delay the policy decided booked their slot already; the others
            // (network back, resume) book it now.
            if loop.attempt > 0, !loop.budgetBooked, let budget = configuration.retryBudget {
                let wait = budget.reserve()
                if wait > .zero {
                    log(.info, "waiting for the shared retry budget", ["retryIn": "\(wait)"])
                    await sleep(wait, unlessWokenSince: wakeup.generation)
                    if Task.isCancelled { return }
                }
            }
            loop.budgetBooked = false
            await waitWhileSuspended()
            if Task.isCancelled { return }
            switch await waitForNetwork(attempt: loop.attempt, announced: &loop.announcedNetworkWait) {
            case .closed: return
            case .suspended: continue
            case .ready: break
            }
            if state.withLock({ s in defer { s.resetBackoff = false }; return s.resetBackoff }) {
                loop.backoff.reset()
                loop.networkBackoff.reset()
            }
            // Exact resume: connect again only once the consumer has processed what it
            // already received, so the cursor covers every delivered event.
            if (transportKind == .sse || configuration.messageID != nil) && loop.attempt > 0 {
                await waitUntilCaughtUp()
                if Task.isCancelled { return }
            }

            // The booked slot paced the plan; admission paces what is actually done. A busy
            // process wakes its timers late and together, and the late ones must not bunch up
            // with those whose slots come now. On time, this never waits.
            if loop.attempt > 0, let budget = configuration.retryBudget {
                // Woken late again: ask again (bounded; a stalled process goes eventually).
                for _ in 0..<3 {
                    let wait = budget.admit()
                    if wait == .zero { break }
                    let admitted = clock.now() + wait
                    await sleep(wait, unlessWokenSince: wakeup.generation)
                    if Task.isCancelled { return }
                    if clock.now() - admitted <= budget.lateness { break }
                }
            }

            loop.attempt += 1
            log(.debug, "connecting", ["attempt": "\(loop.attempt)"])
            guard var outcome = await runAttempt(&loop) else { return }  // closed
            let generation = wakeup.generation

            if state.withLock({ $0.suspended }) {
                // suspend() ended this attempt: not a failure, no policy, no backoff.
                if outcome.opened {
                    let close = CloseEvent(clean: true, code: outcome.end.code, reason: outcome.end.reason, willReconnect: true)
                    guard await forward(.closed(close)) else { return }
                }
                continue
            }

            if state.withLock({ s in defer { s.closedForNetwork = false }; return s.closedForNetwork || s.networkDown }) {
                // The network went away under this attempt: not the server's fault, so no
                // policy and no backoff; the loop waits for the network, then connects at once.
                let lost = RealtimeError(.unreachable, detail: "the network went away")
                if outcome.end.error?.code == .cancelled { outcome.end.error = lost }
                log(.notice, "connection lost with the network", ["attempt": "\(loop.attempt)"])
                guard await report(outcome, willRetry: true, retryIn: nil, reason: lost, attempt: loop.attempt)
                else { return }
                state.withLock { $0.statistics.networkWaits += 1 }
                loop.announcedNetworkWait = true
                continue
            }

            let context = ReconnectContext(
                attempt: loop.attempt, opened: outcome.opened, uptime: outcome.uptime,
                requestIsRepeatable: repeatable,
                canRefreshCredentials: configuration.headersProvider != nil && !loop.refreshedInStreak)
            let decision = configuration.reconnect.decide(
                outcome.end, context: context, backoff: &loop.backoff, using: &rng)

            var delay: Duration?
            switch decision {
            case .retry(let d):
                delay = d
                loop.credentialsRejected = false
            case .coolDown(let d, _):
                delay = d
                loop.credentialsRejected = false
            case .waitForNetwork:
                // No network monitor yet: probe at a backoff pace that spends no attempt.
                delay = loop.networkBackoff.nextDelay(using: &rng)
                loop.credentialsRejected = false
            case .refreshCredentials:
                delay = .zero
                loop.credentialsRejected = true
                loop.refreshedInStreak = true
            case .stop:
                break
            }
            // The delay runs from now, not from when the events below are consumed: a
            // booked slot is a point in time.
            let decidedAt = clock.now()
            if let backoff = delay, let budget = configuration.retryBudget {
                // Book the slot now, so `retryIn` is the real delay: the backoff, or later
                // when the budget shared with other clients is short.
                delay = budget.reserve(after: backoff)
                loop.budgetBooked = true
            }
            var reason: RealtimeError?
            switch decision {
            case .stop(let r): reason = r
            case .coolDown(_, let e): reason = e
            default: break
            }
            var m = metadata(reason ?? outcome.end.error, attempt: loop.attempt)
            m["clean"] = "\(outcome.end.clean)"
            if let delay { m["retryIn"] = "\(delay)" }
            if let code = outcome.end.code { m["closeCode"] = "\(code)" }
            if outcome.end.doNotReconnect { m["doNotReconnect"] = "true" }
            if decision.willRetry {
                log(outcome.end.error == nil ? .info : .warning, "connection ended; will retry", m)
            } else {
                log(reason == nil ? .info : .error, "connection ended; stopping", m)
            }
            guard await report(outcome, willRetry: decision.willRetry, retryIn: delay, reason: reason, attempt: loop.attempt)
            else { return }

            guard let delay else {
                finish()
                return
            }
            let remaining = delay - (clock.now() - decidedAt)
            if remaining > .zero {
                await sleep(remaining, unlessWokenSince: generation)
            }
            // Woken early (suspend, resume, network change): the booked slot was not waited
            // for, so the next attempt books again.
            if wakeup.generation != generation { loop.budgetBooked = false }
        }
    }

    /// Sleeps on the client's clock; returns early when the task is cancelled or when
    /// ``suspend()``/``resume()`` wake the loop.
    func sleep(_ delay: Duration, unlessWokenSince generation: UInt64) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.clock.sleep(delay) }
            group.addTask { await self.wakeup.wait(since: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Returns at once unless suspended; then waits for ``resume()`` (or cancellation).
    private func waitWhileSuspended() async {
        while !Task.isCancelled {
            let generation = wakeup.generation
            guard state.withLock({ $0.suspended }) else { return }
            await wakeup.wait(since: generation)
        }
    }

    /// Makes and runs one attempt; nil when the client was closed meanwhile.
    private func runAttempt(_ loop: inout LoopState) async -> AttemptOutcome? {
        var request = TransportRequest(url: url)
        request.method = configuration.method
        request.headers = configuration.headers
        request.body = configuration.body
        request.subprotocols = configuration.subprotocols
        request.tls = configuration.tls
        request.connectTimeout = configuration.connectTimeout
        request.idleTimeout = configuration.idleTimeout
        request.maxRedirects = configuration.maxRedirects
        request.sensitiveHeaderNames = configuration.sensitiveHeaderNames
        request.allowsInsecureRedirects = configuration.allowsInsecureRedirects
        request.eventBufferCapacity = configuration.eventBufferCapacity
        request.attempt = loop.attempt

        if let provider = configuration.headersProvider {
            let context = HeadersContext(attempt: loop.attempt, credentialsRejected: loop.credentialsRejected)
            do {
                let fresh = try await provider(context)
                for field in fresh.fields {
                    request.headers.remove(name: field.name)
                }
                for field in fresh.fields {
                    request.headers.add(name: field.name, value: field.value)
                }
            } catch {
                if Task.isCancelled { return nil }
                let e = (error as? RealtimeError) ?? RealtimeError(.unauthorized, detail: "headers provider failed")
                return AttemptOutcome(
                    end: TransportEnd(clean: false, error: e, requestWasDelivered: false), opened: false, uptime: .zero)
            }
        }
        let cursor = delivery.withLock { $0.cursor }
        request.lastEventID = cursor
        if let resumeURL = configuration.resumeURL {
            let built = resumeURL(url, cursor)
            guard Self.transportKind(for: built) == transportKind else {
                let e = RealtimeError(.invalidConfiguration, detail: "resumeURL changed the transport's scheme")
                return AttemptOutcome(
                    end: TransportEnd(clean: false, error: e, requestWasDelivered: false), opened: false, uptime: .zero)
            }
            request.url = built
        }

        let transport: any Transport
        do {
            transport = try makeTransport(request)
        } catch {
            let e = (error as? RealtimeError) ?? RealtimeError(.internal, detail: "transport factory failed")
            return AttemptOutcome(
                end: TransportEnd(clean: false, error: e, requestWasDelivered: false), opened: false, uptime: .zero)
        }
        enum Registration { case registered, closed, suspended }
        let registration: Registration = state.withLock { s in
            guard s.phase == .running else { return .closed }
            guard !s.suspended else { return .suspended }
            s.transport = transport
            return .registered
        }
        switch registration {
        case .registered:
            state.withLock { $0.statistics.attempts += 1 }
        case .closed:
            transport.close()
            return nil
        case .suspended:
            transport.close()
            return AttemptOutcome(
                end: TransportEnd(clean: false, error: .cancelled, requestWasDelivered: false), opened: false, uptime: .zero)
        }
        // Messages (and the `.open` before them) go from the transport's producer straight
        // to the consumer's buffer through a relay, with no hop through this task; this
        // task sees the control events: `.opened` (for bookkeeping), retry hints, the end.
        let attempt = loop.attempt
        transport.events.setRelay { [weak self] events in self?.relay(&events, attempt: attempt) ?? true }
        transport.start()

        var opened = false
        var openedAt = Duration.zero
        var end: TransportEnd?
        while end == nil, let event = await transport.events.next() {
            switch event {
            case .opened(let info):
                opened = true
                openedAt = clock.now()
                loop.refreshedInStreak = false
                loop.networkBackoff.reset()
                log(.info, "connected", ["attempt": "\(attempt)", "status": info.status.map { "\($0)" } ?? ""])
            case .message:
                // The relay takes every message; nothing to do if one ever arrives here.
                break
            case .retryHint(let time):
                loop.backoff.setServerReconnectionTime(time)
            case .ended(let e):
                end = e
            }
        }
        transport.events.setRelay(nil)
        state.withLock { s in
            if s.transport === transport { s.transport = nil }
        }
        if Task.isCancelled {
            transport.close()
            return nil
        }
        let uptime = opened ? clock.now() - openedAt : .zero
        let finalEnd = end ?? TransportEnd(
            clean: false, error: RealtimeError(.internal, detail: "transport finished without an end event"))
        return AttemptOutcome(end: finalEnd, opened: opened, uptime: uptime)
    }

    /// Emits the `.error` and/or `.closed` events for an ended attempt. False when closed.
    private func report(
        _ outcome: AttemptOutcome, willRetry: Bool, retryIn: Duration?, reason: RealtimeError?, attempt: Int
    ) async -> Bool {
        let end = outcome.end
        let error = reason ?? end.error.flatMap { $0.code == .streamEnded ? nil : $0 }
        // Count the failure itself (e.g. `http` for a 503), not a policy wrapper around it.
        if let counted = end.error.flatMap({ $0.code == .streamEnded ? nil : $0 }) ?? reason {
            state.withLock { $0.statistics.errorsByClass[counted.failureClass, default: 0] += 1 }
        }
        if let error {
            let event = ErrorEvent(error: error, willRetry: willRetry, retryIn: willRetry ? retryIn : nil, attempt: attempt)
            guard await forward(.error(event)) else { return false }
        }
        // `closed` always pairs with the `open` before it: an attempt that never opened (an
        // SSE 204 answering a resume, a refused handshake) emits no `closed`. A 204 ends
        // `events` with no further event; the log says why.
        if outcome.opened {
            let close = CloseEvent(clean: end.clean, code: end.code, reason: end.reason, willReconnect: willRetry)
            guard await forward(.closed(close)) else { return false }
        }
        return true
    }

    /// Hands an event to the consumer's buffer, waiting while it is full. False when closed.
    func forward(_ event: ClientEvent) async -> Bool {
        let seq: UInt64? = state.withLock { s in
            guard s.phase == .running else { return nil }
            return forwardedSeq.add(1, ordering: .acquiringAndReleasing).newValue
        }
        guard let seq else { return false }
        if !channel.send(Envelope(event: event, seq: seq)) {
            // Not reading from the transport now is what lets its buffer fill and pause the
            // socket (end-to-end back-pressure).
            await demand.wait()
        }
        return !Task.isCancelled
    }

    /// The relay on an attempt's transport channel (see ``BoundedChannel/setRelay(_:)``), run
    /// on the transport's producer thread: moves the messages, and a client `.open` for the
    /// transport's `.opened`, into the consumer's buffer in one go, numbered in order;
    /// leaves the control events (`.opened` too, for the loop's bookkeeping) in `events`.
    /// Returns false when the consumer's buffer is full (the transport pauses reading).
    func relay(_ events: inout [TransportEvent], attempt: Int) -> Bool {
        var envelopes: [Envelope] = []
        envelopes.reserveCapacity(events.count)
        var controls = 0
        var opens = 0
        var bytes = 0
        let messageID = transportKind == .webSocket ? configuration.messageID : nil
        for event in events {
            switch event {
            case .message(var message):
                bytes &+= message.payloadByteCount
                if let messageID { message.id = messageID(message) }
                envelopes.append(Envelope(event: .event(message), seq: 0))
            case .opened(var info):
                info.attempt = attempt
                envelopes.append(Envelope(event: .open(info), seq: 0))
                opens += 1
                controls += 1
            case .retryHint, .ended:
                controls += 1
            }
        }
        if controls == 0 {
            events.removeAll(keepingCapacity: true)
        } else {
            events.removeAll { if case .message = $0 { true } else { false } }
        }
        guard !envelopes.isEmpty else { return true }
        let first: UInt64? = state.withLock { s in
            // Closed: dropped; the loop closes the transport.
            guard s.phase == .running else { return nil }
            let first = forwardedSeq.add(UInt64(envelopes.count), ordering: .acquiringAndReleasing).newValue
                - UInt64(envelopes.count) + 1
            s.statistics.messages += envelopes.count - opens
            s.statistics.bytes += bytes
            s.statistics.connections += opens
            return first
        }
        guard let first else { return true }
        for i in envelopes.indices { envelopes[i].seq = first + UInt64(i) }
        return channel.send(draining: &envelopes)
    }

    /// Waits until every event forwarded so far has been processed by the consumer.
    private func waitUntilCaughtUp() async {
        await waitAsSingleWaiter(
            park: { c in
                state.withLock { s in
                    if s.phase != .running || Task.isCancelled { return true }
                    return delivery.withLock { d in
                        if d.processedSeq == forwardedSeq.load(ordering: .acquiring) { return true }
                        d.caughtUpWaiter = c
                        return false
                    }
                }
            },
            unpark: { self.delivery.withLock { d in defer { d.caughtUpWaiter = nil }; return d.caughtUpWaiter } }
        )
    }

    /// The policy stopped: the consumer gets what is buffered, then the end of ``events``.
    private func finish() {
        state.withLock { s in
            if s.phase == .running { s.phase = .finished }
            s.loopTask = nil
        }
        channel.finish()
    }
}

@_spi(Transport) import RealtimeCore
extension RealtimeClient {
    /// Feeds one event to the state machine under the lock, then performs its effects.
    func handle(_ event: (inout ClientStateMachine, Duration) -> ClientStateMachine.Effects) {
        let now = clock.now()
        let work: ClientStorage.Work = storage.state.withLock { s in
            var work = ClientStorage.Work()
            s.absorb(event(&s.machine, now), into: &work)
            s.conclude(&work)
            return work
        }
        perform(work)
    }

    /// Performs what the machine asked for, with no lock held: first the tasks the step
    /// cancelled, then its actions in the machine's order, the requests answered at once by
    /// feeding the machine again (the retry budget, the consumer's progress, the next
    /// attempt) after the others, and last the wake-ups (the consumer, the on-open hook, the
    /// iterators of `stateChanges`). Returns the relay's answer to its transport (true but for
    /// a relayed batch that filled the consumer's buffer).
    @discardableResult
    func perform(_ work: ClientStorage.Work) -> Bool {
        for task in work.cancelled { task.cancel() }
        var sendersResumed = false
        for action in work.actions where !action.isAnsweredAtOnce {
            switch action {
            case .log(let record):
                log(record.level, record.message, record.metadata)
            case .transport(let command):
                if let transport = work.transport { carryOut(command, on: transport) }
            case .stopObservingNetwork:
                if let (monitor, observation) = work.observation { monitor.cancel(observation) }
            case .terminate:
                storage.dropHand()
            case .resolveSends:
                guard !sendersResumed else { continue }
                sendersResumed = true
                for (sender, error) in work.senders {
                    if let error { sender.resume(throwing: error) } else { sender.resume() }
                }
            case .loadCursor:
                loadCursor()
            case .startTimer(let token, let deadline):
                startTimer(token, deadline: deadline)
            case .sendExpiry(let change):
                if case .arm(let deadline) = change { armSendExpiry(deadline, generation: work.expiryGeneration) }
            case .openHook(let attempt, let info, let cursor, let deadline):
                runOpenHook(attempt: attempt, info: info, cursor: cursor, deadline: deadline)
            case .drainSends:
                drainSends()
            case .emit, .finish, .cancelTimer, .cancelWork, .budget, .awaitConsumer, .connect:
                break  // done under the lock, cancelled above, or answered below
            }
        }
        for action in work.actions where action.isAnsweredAtOnce { answer(action) }
        work.consumerWaiter?.resume()
        work.hookWaiter?.resume()
        for waiter in work.stateWaiters { waiter.resume() }
        return work.mayContinue
    }

    private func carryOut(_ command: ClientStateMachine.TransportCommand, on transport: any Transport) {
        switch command {
        case .close: transport.close()
        case .closeWith(let code): transport.close(code: code, reason: "")
        case .abort: transport.abort()
        case .verify(let within): transport.verifyConnection(within: within)
        }
    }

    /// A request the driver answers by feeding the machine again.
    private func answer(_ action: ClientStateMachine.Action) {
        switch action {
        case .budget(.reserveSlot(let after)):
            reserveRetrySlot(after: after)
        case .budget(.admitAttempt):
            admitAttempt()
        case .awaitConsumer:
            storage.consumerAwaited.store(true, ordering: .sequentiallyConsistent)
            reportConsumerProgress()
        case .connect(let plan):
            beginAttempt(plan)
        default:
            preconditionFailure("\(action) is not answered at once")
        }
    }

    /// Loads the cursor from the store, for the consumer's ledger and the machine.
    private func loadCursor() {
        startWork { client in
            let loaded = await client.configuration.cursorStore?.load()
            client.storage.consumer.withLock { $0.ledger.load(loaded) }
            client.handle { machine, now in machine.cursorLoaded(loaded, now: now) }
        }
    }

    /// Starts the attempt the machine planned: at once without a headers provider, else in a
    /// preparation task.
    private func beginAttempt(_ plan: ClientStateMachine.ConnectPlan) {
        storage.consumerAwaited.store(false, ordering: .sequentiallyConsistent)
        if configuration.headersProvider == nil {
            connectNow(plan)
        } else {
            startWork { client in await client.prepare(plan) }
        }
    }

    /// Arms the machine's timer at `deadline` on the client's clock. Kept only while the
    /// machine still wants that timer (a disarm may come first).
    private func startTimer(_ token: UInt64, deadline: Duration) {
        let timer = clock.arm(at: deadline) { [weak self] in
            self?.handle { machine, now in machine.timerFired(token, now: now) }
        }
        let keep: Bool = storage.state.withLock { s in
            guard s.machine.armedTimer == token else { return false }
            s.timer = (token, timer)
            return true
        }
        if !keep { timer.cancel() }
    }

    /// Runs preparation work (an attempt's headers and transport, the cursor load) in a task
    /// that ``close()`` cancels.
    func startWork(_ body: @escaping @Sendable (RealtimeClient) async -> Void) {
        // The task is created and registered under the lock its own ending takes, so it can
        // never end before it is registered; after ``close()`` nothing starts.
        storage.state.withLock { s in
            guard !s.machine.isTerminal else { return }
            s.nextWork &+= 1
            let id = s.nextWork
            s.work[id] = Task { [self] in
                await body(self)
                storage.state.withLock { s in _ = s.work.removeValue(forKey: id) }
            }
        }
    }

    /// Books the next reconnect's slot in the shared retry budget.
    private func reserveRetrySlot(after delay: Duration) {
        let booked = configuration.retryBudget?.reserve(after: delay) ?? delay
        handle { machine, now in machine.retrySlotReserved(booked, now: now) }
    }

    /// Asks the shared retry budget to admit the attempt about to be made.
    private func admitAttempt() {
        let wait = configuration.retryBudget?.admit() ?? .zero
        let lateness = configuration.retryBudget?.lateness ?? .zero
        handle { machine, now in machine.attemptAdmitted(wait: wait, lateness: lateness, now: now) }
    }
}

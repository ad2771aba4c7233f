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

    /// Performs what the machine asked for, with no lock held: first what ends or cancels,
    /// then what starts (timers, tasks), then the requests answered at once (the retry budget,
    /// the consumer's progress, the next attempt), and last the wake-ups (the consumer, the
    /// iterators of `stateChanges`). Returns the relay's answer to its transport (true but
    /// for a relayed batch that filled the consumer's buffer).
    @discardableResult
    func perform(_ work: ClientStorage.Work) -> Bool {
        let effects = work.effects
        for record in effects.logs { log(record.level, record.message, record.metadata) }
        for task in work.cancelled { task.cancel() }
        if let transport = work.transport, let command = effects.transport {
            switch command {
            case .close: transport.close()
            case .abort: transport.abort()
            case .verify(let within): transport.verifyConnection(within: within)
            }
        }
        if let (monitor, observation) = work.observation { monitor.cancel(observation) }
        if effects.terminate { storage.dropHand() }
        for (sender, error) in work.senders {
            if let error { sender.resume(throwing: error) } else { sender.resume() }
        }
        if effects.loadCursor { loadCursor() }
        if let (token, deadline) = effects.startTimer { startTimer(token, deadline: deadline) }
        if case .arm(let deadline) = effects.sendExpiry { armSendExpiry(deadline, generation: work.expiryGeneration) }
        if let hook = effects.openHook { runOpenHook(attempt: hook.attempt, info: hook.info, cursor: hook.cursor, deadline: hook.deadline) }
        if effects.drainSends { drainSends() }
        switch effects.budget {
        case .reserveSlot(let after): reserveRetrySlot(after: after)
        case .admitAttempt: admitAttempt()
        case nil: break
        }
        if effects.awaitConsumer {
            storage.consumerAwaited.store(true, ordering: .sequentiallyConsistent)
            reportConsumerProgress()
        }
        if let plan = effects.connect { beginAttempt(plan) }
        work.consumerWaiter?.resume()
        work.hookWaiter?.resume()
        for waiter in work.stateWaiters { waiter.resume() }
        return work.mayContinue
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

    /// Arms the machine's timer: a task that sleeps until `deadline` on the client's clock.
    /// Kept only while the machine still wants that timer (a disarm may come first).
    private func startTimer(_ token: UInt64, deadline: Duration) {
        let task = Task { [weak self, clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            self?.handle { machine, now in machine.timerFired(token, now: now) }
        }
        let keep: Bool = storage.state.withLock { s in
            guard s.machine.armedTimer == token else { return false }
            s.timer = (token, task)
            return true
        }
        if !keep { task.cancel() }
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

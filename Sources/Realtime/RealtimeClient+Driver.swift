extension RealtimeClient {
    /// Feeds one event to the state machine under the lock, then performs its actions.
    func handle(_ event: (inout ClientStateMachine, Duration) -> [ClientStateMachine.Action]) {
        let now = clock.now()
        let effects: [ClientEffect] = storage.state.withLock { s in
            var effects: [ClientEffect] = []
            let actions = event(&s.machine, now)
            s.absorb(actions, into: &effects)
            s.conclude(&effects)
            return effects
        }
        perform(effects)
    }

    /// Performs what the machine asked for, in order, with no lock held. Returns the
    /// consumer's buffer's "keep going" when this thread moved events into it, else true.
    @discardableResult
    func perform(_ effects: [ClientEffect]) -> Bool {
        var mayContinue = true
        for effect in effects {
            switch effect {
            case .emit(var envelopes, let finish):
                mayContinue = storage.emit(&envelopes, finish: finish)
            case .terminate:
                storage.channel.terminate()
            case .loadCursor:
                startWork { client in
                    let loaded = await client.configuration.cursorStore?.load()
                    client.storage.consumer.withLock { $0.load(loaded) }
                    client.handle { machine, now in machine.cursorLoaded(loaded, now: now) }
                }
            case .awaitConsumer:
                storage.consumerAwaited.store(true, ordering: .sequentiallyConsistent)
                reportConsumerProgress()
            case .connect(let plan):
                storage.consumerAwaited.store(false, ordering: .sequentiallyConsistent)
                if configuration.headersProvider == nil {
                    connectNow(plan)
                } else {
                    startWork { client in await client.prepare(plan) }
                }
            case .startTimer(let token, let deadline):
                startTimer(token, deadline: deadline)
            case .cancel(let task):
                task.cancel()
            case .cancelAll(let tasks):
                for task in tasks { task.cancel() }
            case .reserveRetrySlot(let after):
                reserveRetrySlot(after: after)
            case .admitAttempt:
                admitAttempt()
            case .close(let transport):
                transport.close()
            case .abort(let transport):
                transport.abort()
            case .verify(let transport, let within):
                transport.verifyConnection(within: within)
            case .stopObserving(let monitor, let observation):
                monitor.cancel(observation)
            case .log(let record):
                log(record.level, record.message, record.metadata)
            case .publish(let waiters):
                for waiter in waiters { waiter.resume() }
            case .drainSends:
                drainSends()
            case .runOpenHook(let attempt, let info, let deadline):
                runOpenHook(attempt: attempt, info: info, deadline: deadline)
            case .armSendExpiry(let deadline, let generation):
                armSendExpiry(deadline, generation: generation)
            case .resumeSenders(let senders):
                for (sender, error) in senders {
                    if let error { sender.resume(throwing: error) } else { sender.resume() }
                }
            }
        }
        return mayContinue
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

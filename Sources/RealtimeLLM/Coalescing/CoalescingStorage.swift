import RealtimeCore

/// The I/O side of ``CoalescedSequence``: a task that reads the source, a timer task, and the
/// consumer's and producer's continuations, around one `CoalescingStateMachine`.
/// Continuations are resumed and tasks cancelled outside the lock.
final class CoalescingStorage<Element: Sendable, Failure: Error>: Sendable {
    private typealias Machine = CoalescingStateMachine<Element, Failure>

    private struct State {
        var machine: Machine
        var consumer: CheckedContinuation<Result<[Element]?, Failure>, Never>?
        var producer: CheckedContinuation<Void, Never>?
        var timer: Task<Void, Never>?
        var reader: Task<Void, Never>?
        var cancelled = false
    }

    private let state: LockedValue<State>
    private let clock: CoalescingClock

    init(machine: CoalescingStateMachine<Element, Failure>, clock: CoalescingClock) {
        self.state = LockedValue(State(machine: machine))
        self.clock = clock
    }

    // MARK: Consumer

    func next() async throws(Failure) -> [Element]? {
        let result: Result<[Element]?, Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                consumerArrives(continuation)
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    private func consumerArrives(_ continuation: CheckedContinuation<Result<[Element]?, Failure>, Never>) {
        let now = clock.now()
        var producer: CheckedContinuation<Void, Never>?
        var immediate: Result<[Element]?, Failure>?
        var deadline: Duration?
        state.withLock { s in
            switch s.machine.next(now: now) {
            case .deliver(let batch, let resumeProducer):
                immediate = .success(batch)
                if resumeProducer { producer = s.producer.take() }
            case .suspend:
                s.consumer = continuation
            case .suspendUntil(let d):
                s.consumer = continuation
                deadline = d
            case .finish(let failure):
                immediate = failure.map { .failure($0) } ?? .success(nil)
            }
        }
        producer?.resume()
        if let immediate { continuation.resume(returning: immediate) }
        if let deadline { armTimer(deadline) }
    }

    // MARK: Source

    func start<Base: AsyncSequence & Sendable>(_ base: Base) where Base.Element == Element, Base.Failure == Failure {
        let reader = Task { [self] in
            var iterator = base.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    guard await arrived(element) else { return }
                }
                ended(nil)
            } catch {
                ended(error)
            }
        }
        let cancelNow: Bool = state.withLock { s in
            s.reader = reader
            return s.cancelled
        }
        if cancelNow { reader.cancel() }
    }

    /// Hands an element to the machine; returns false when reading must stop.
    private func arrived(_ element: Element) async -> Bool {
        let now = clock.now()
        var consumer: CheckedContinuation<Result<[Element]?, Failure>, Never>?
        let action: Machine.ArrivalAction = state.withLock { s in
            let action = s.machine.elementArrived(element, now: now)
            if case .deliver = action { consumer = s.consumer.take() }
            return action
        }
        switch action {
        case .none:
            return true
        case .deliver(let batch):
            consumer?.resume(returning: .success(batch))
            return true
        case .armTimer(let deadline, let pause):
            armTimer(deadline)
            if pause { await waitWhilePaused() }
            return true
        case .pause:
            await waitWhilePaused()
            return true
        case .stop:
            return false
        }
    }

    /// Suspends the reader until the machine no longer holds it paused (a batch was taken,
    /// or the consumer went away).
    private func waitWhilePaused() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let paused: Bool = state.withLock { s in
                guard s.machine.isProducerPaused else { return false }
                s.producer = continuation
                return true
            }
            if !paused { continuation.resume() }
        }
    }

    private func ended(_ failure: Failure?) {
        let now = clock.now()
        var consumer: CheckedContinuation<Result<[Element]?, Failure>, Never>?
        let (action, timer): (Machine.EndAction, Task<Void, Never>?) = state.withLock { s in
            let action = s.machine.sourceEnded(failure, now: now)
            if case .none = action {} else { consumer = s.consumer.take() }
            return (action, s.timer.take())
        }
        timer?.cancel()
        switch action {
        case .none: break
        case .deliver(let batch): consumer?.resume(returning: .success(batch))
        case .finish(let failure): consumer?.resume(returning: failure.map { .failure($0) } ?? .success(nil))
        }
    }

    // MARK: Timer

    private func armTimer(_ deadline: Duration) {
        let timer = Task { [self, clock] in
            do {
                try await clock.sleepUntil(deadline)
            } catch {
                return
            }
            timerFired(deadline)
        }
        let previous: Task<Void, Never>? = state.withLock { s in
            defer { s.timer = timer }
            return s.timer
        }
        previous?.cancel()
    }

    private func timerFired(_ deadline: Duration) {
        let now = clock.now()
        var consumer: CheckedContinuation<Result<[Element]?, Failure>, Never>?
        var producer: CheckedContinuation<Void, Never>?
        let action: Machine.TimerAction = state.withLock { s in
            let action = s.machine.timerFired(deadline: deadline, now: now)
            if case .deliver(_, let resumeProducer) = action {
                consumer = s.consumer.take()
                if resumeProducer { producer = s.producer.take() }
            }
            return action
        }
        if case .deliver(let batch, _) = action {
            producer?.resume()
            consumer?.resume(returning: .success(batch))
        }
    }

    // MARK: Cancellation

    /// The consumer went away: ends a waiting `next()`, discards what is pending and cancels
    /// the reader and the timer. Idempotent.
    func cancel() {
        var consumer: CheckedContinuation<Result<[Element]?, Failure>, Never>?
        var producer: CheckedContinuation<Void, Never>?
        let tasks: [Task<Void, Never>] = state.withLock { s in
            guard !s.cancelled else { return [] }
            s.cancelled = true
            let action = s.machine.cancelled()
            if action.finishConsumer { consumer = s.consumer.take() }
            if action.resumeProducer { producer = s.producer.take() }
            return [s.reader.take(), s.timer.take()].compactMap { $0 }
        }
        consumer?.resume(returning: .success(nil))
        producer?.resume()
        for task in tasks { task.cancel() }
    }
}

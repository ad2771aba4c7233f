import Synchronization
@_spi(Transport) import RealtimeCore

extension RealtimeClient {
    /// Runs ``Configuration/onOpen`` for attempt `attempt`, bounded by `deadline` on the
    /// client's clock, and reports how it ended to the machine. The work task is cancelled
    /// when the attempt ends or the client closes; the report of a stale attempt is ignored.
    func runOpenHook(attempt: Int, info: ConnectionInfo, cursor: String?, deadline: Duration) {
        guard let hook = configuration.onOpen else { return }
        startWork { client in
            let race = OpenHookRace()
            let context = client.openContext(attempt: attempt, info: info, cursor: cursor, race: race)
            let error = await client.openHookOutcome(hook, context: context, race: race, deadline: deadline)
            if Task.isCancelled { return }
            client.handshakeFinished(attempt: attempt, error: error)
        }
    }

    /// The hook's context: sends go straight to attempt `attempt`'s transport, receives take
    /// the messages of its handshake. Once the hook failed (it threw, or ran out of time and
    /// goes on deaf to its cancellation), its sends are refused: the connection is failing.
    private func openContext(attempt: Int, info: ConnectionInfo, cursor: String?, race: OpenHookRace) -> OpenContext {
        OpenContext(
            info: info, cursor: cursor,
            sender: { [weak self] message, flush in
                guard let self else { throw RealtimeError(.notConnected) }
                guard !race.failed else { throw RealtimeError(.notConnected, detail: "the on-open hook failed") }
                try await self.sendFromOpenHook(message, flush: flush, attempt: attempt)
            },
            receiver: { [weak self] predicate in
                guard let self else { throw RealtimeError(.notConnected) }
                return try await self.receiveInHandshake(attempt: attempt, where: predicate)
            },
            failer: { [weak self] error, code in
                self?.handle { machine, _ in machine.connectionFailed(attempt: attempt, error: error, closeCode: code) }
            })
    }

    /// Reports how the hook ended, under the lock: when the connection is ready, the messages
    /// the hook left go to the consumer right after the `open`, before anything the
    /// transport delivers next.
    private func handshakeFinished(attempt: Int, error: RealtimeError?) {
        let now = clock.now()
        let (work, resume): (ClientStorage.Work, (any Transport)?) = storage.state.withLock { s in
            var work = ClientStorage.Work()
            var resume: (any Transport)?
            switch s.machine.openHookFinished(attempt: attempt, error: error, now: now) {
            case .ignored:
                break
            case .failed(let effects):
                s.absorb(effects, into: &work)
                if s.handshake.attempt == attempt { work.hookWaiter = s.handshake.end().waiter }
            case .ready(let effects):
                s.absorb(effects, into: &work)
                if releaseHeld(&s, attempt: attempt, into: &work), let live = s.transport, live.attempt == attempt {
                    resume = live.transport
                }
            }
            s.conclude(&work)
            return (work, resume)
        }
        perform(work)
        resume?.resumeDelivery()
    }

    /// Moves the messages held during attempt `attempt`'s handshake into the consumer's
    /// buffer, numbered after the `open`. True when the handshake had paused the transport
    /// and the buffer has room for it to read again.
    private func releaseHeld(_ s: inout ClientStorage.State, attempt: Int, into work: inout ClientStorage.Work) -> Bool {
        let (messages, waiter, paused) = s.handshake.end()
        work.hookWaiter = waiter
        if !messages.isEmpty {
            var batch = RelayBatch()
            let grouping = storage.deliversBatches.load(ordering: .relaxed)
            for message in messages { batch.add(message, grouping: grouping) }
            batch.closeGroup()
            let first = s.machine.heldMessagesReleased(attempt: attempt, count: batch.count)
            ClientStorage.Envelope.number(&batch.messages, from: first)
            s.wake(s.buffer.push(&batch.messages), &work)
        }
        return paused && storage.producerMayContinue(&s)
    }

    /// The first message of attempt `attempt`'s handshake that `predicate` accepts, taken
    /// from the messages held for the consumer (the others stay, in order).
    private func receiveInHandshake(attempt: Int, where predicate: @Sendable (Message) -> Bool) async throws -> Message {
        var seen: UInt64 = 0
        while true {
            if Task.isCancelled { throw RealtimeError.cancelled }
            let unseen = storage.state.withLock { s in s.handshake.unseen(after: seen, attempt: attempt).map(Array.init) }
            guard let unseen else {
                throw RealtimeError(.notConnected, detail: "the connection of the on-open hook is gone")
            }
            for (serial, message) in unseen {
                guard predicate(message) else {
                    seen = serial
                    continue
                }
                let resume: (any Transport)? = storage.state.withLock { s in
                    guard s.handshake.take(serial), let live = s.transport, live.attempt == attempt else { return nil }
                    return live.transport
                }
                resume?.resumeDelivery()
                return message
            }
            try await waitForHandshakeMessage(after: seen, attempt: attempt)
        }
    }

    /// Suspends the hook until a message after serial `seen` is held, the handshake is over,
    /// or the hook's task is cancelled.
    private func waitForHandshakeMessage(after seen: UInt64, attempt: Int) async throws {
        var busy = false
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let answer = storage.state.withLock { s in s.handshake.wait(c, after: seen, attempt: attempt) }
                switch answer {
                case .waiting: break
                case .ready: c.resume()
                case .busy:
                    busy = true
                    c.resume()
                }
            }
        } onCancel: {
            storage.state.withLock { $0.handshake.takeWaiter() }?.resume()
        }
        if busy { throw RealtimeError(.invalidConfiguration, detail: "the on-open hook receives one message at a time") }
    }

    /// nil when the hook returned; `open_hook_failed` when it threw or ran out of time. The
    /// hook runs in a task of its own, raced with a timer on the client's clock: a hook that
    /// ignores cancellation cannot hold the attempt past its deadline.
    private func openHookOutcome(
        _ hook: @escaping @Sendable (OpenContext) async throws -> Void, context: OpenContext, race: OpenHookRace,
        deadline: Duration
    ) async -> RealtimeError? {
        let timeout = configuration.onOpenTimeout
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<RealtimeError?, Never>) in
                let hookTask = Task {
                    do {
                        try await hook(context)
                        race.finish(nil)
                    } catch {
                        race.finish(Self.openHookError(error))
                    }
                }
                let timer = clock.arm(at: deadline) {
                    race.finish(RealtimeError(.openHookFailed, detail: "the on-open hook did not finish within \(timeout.millisecondsDescription)"))
                }
                race.begin(c, cancelling: [.task(hookTask), timer])
            }
        } onCancel: {
            race.finish(.cancelled)
        }
    }

    private static func openHookError(_ error: any Error) -> RealtimeError {
        // The hook's own error may hold anything: only its type is named.
        var e = RealtimeError(.openHookFailed, detail: "the on-open hook threw \(type(of: error))")
        e.underlying = error as? RealtimeError
        return e
    }

    /// A send from the hook (or a context kept after it) goes straight to attempt `attempt`'s
    /// transport (the outbox waits for the hook), and counts in the statistics like any send.
    private func sendFromOpenHook(_ message: OutboundMessage, flush: Bool, attempt: Int) async throws {
        guard transportKind == .webSocket else { throw RealtimeError(.sendNotSupported) }
        let live: (any Transport)? = storage.state.withLock { s in
            guard s.machine.accepts(attempt: attempt), let t = s.transport, t.attempt == attempt else { return nil }
            return t.transport
        }
        guard let live else { throw RealtimeError(.notConnected, detail: "the connection of the on-open hook is gone") }
        try await live.send(message, flush: flush)
        storage.state.withLock { $0.machine.sent(bytes: message.payloadSize) }
    }
}

/// The first of the hook, its timer and a cancellation to finish resumes the waiting task
/// and cancels the others; later finishes do nothing.
private final class OpenHookRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<RealtimeError?, Never>?
        var tasks: [ClientTimer] = []
        /// Finished before the continuation was set (an early cancellation), with this result.
        var early: RealtimeError??
        var done = false
        var failed = false
    }
    private let state = LockedValue(State())

    /// The race ended with an error: the hook threw, ran out of time or was cancelled.
    var failed: Bool { state.withLock { $0.failed } }

    func begin(_ c: CheckedContinuation<RealtimeError?, Never>, cancelling tasks: [ClientTimer]) {
        let early: RealtimeError?? = state.withLock { s in
            if s.done { return s.early }
            s.continuation = c
            s.tasks = tasks
            return nil
        }
        guard let early else { return }
        for t in tasks { t.cancel() }
        c.resume(returning: early)
    }

    func finish(_ result: RealtimeError?) {
        let taken: (CheckedContinuation<RealtimeError?, Never>, [ClientTimer])? = state.withLock { s in
            guard !s.done else { return nil }
            s.done = true
            s.failed = result != nil
            guard let c = s.continuation else {
                s.early = .some(result)
                return nil
            }
            s.continuation = nil
            defer { s.tasks = [] }
            return (c, s.tasks)
        }
        guard let (c, tasks) = taken else { return }
        for t in tasks { t.cancel() }
        c.resume(returning: result)
    }
}

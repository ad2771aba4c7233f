import Synchronization

extension RealtimeClient {
    /// Runs ``Configuration/onOpen`` for attempt `attempt`, bounded by `deadline` on the
    /// client's clock, and reports how it ended to the machine. The work task is cancelled
    /// when the attempt ends or the client closes; the report of a stale attempt is ignored.
    func runOpenHook(attempt: Int, info: ConnectionInfo, deadline: Duration) {
        guard let hook = configuration.onOpen else { return }
        startWork { client in
            let error = await client.openHookOutcome(hook, attempt: attempt, info: info, deadline: deadline)
            if Task.isCancelled { return }
            client.handle { machine, now in machine.openHookFinished(attempt: attempt, error: error, now: now) }
        }
    }

    /// nil when the hook returned; `open_hook_failed` when it threw or ran out of time. The
    /// hook and the timer run in tasks of their own, raced: a hook that ignores cancellation
    /// cannot hold the attempt past its deadline.
    private func openHookOutcome(
        _ hook: @escaping @Sendable (OpenContext) async throws -> Void, attempt: Int, info: ConnectionInfo, deadline: Duration
    ) async -> RealtimeError? {
        let context = OpenContext(info: info) { [weak self] message, flush in
            guard let self else { throw RealtimeError(.notConnected) }
            try await self.sendFromOpenHook(message, flush: flush, attempt: attempt)
        }
        let race = OpenHookRace()
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
                let timerTask = Task { [clock] in
                    do { try await clock.sleep(until: deadline) } catch { return }
                    race.finish(RealtimeError(.openHookFailed, detail: "the on-open hook did not finish within \(timeout)"))
                }
                race.begin(c, tasks: [hookTask, timerTask])
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

    /// A send from the hook goes straight to attempt `attempt`'s transport (the outbox waits
    /// for the hook).
    private func sendFromOpenHook(_ message: OutboundMessage, flush: Bool, attempt: Int) async throws {
        guard transportKind == .webSocket else { throw RealtimeError(.sendNotSupported) }
        let live: (any Transport)? = storage.state.withLock { s in
            guard s.machine.accepts(attempt: attempt), let t = s.transport, t.attempt == attempt else { return nil }
            return t.transport
        }
        guard let live else { throw RealtimeError(.notConnected, detail: "the connection of the on-open hook is gone") }
        try await live.send(message, flush: flush)
    }
}

/// The first of the hook, its timer and a cancellation to finish resumes the waiting task
/// and cancels the other tasks; later finishes do nothing.
private final class OpenHookRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<RealtimeError?, Never>?
        var tasks: [Task<Void, Never>] = []
        /// Finished before the continuation was set (an early cancellation), with this result.
        var early: RealtimeError??
        var done = false
    }
    private let state = Mutex(State())

    func begin(_ c: CheckedContinuation<RealtimeError?, Never>, tasks: [Task<Void, Never>]) {
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
        let taken: (CheckedContinuation<RealtimeError?, Never>, [Task<Void, Never>])? = state.withLock { s in
            guard !s.done else { return nil }
            s.done = true
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

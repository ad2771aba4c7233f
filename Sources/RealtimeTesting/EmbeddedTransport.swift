#if os(Linux)
@_spi(Transport) import RealtimeCore

/// A production transport as the client of an ``EmbeddedNetwork`` sees it: every call goes to
/// the transport itself; its start (which only queues work on the loop) is reported, so the
/// test can wait for an attempt the client started from another task before running the loop.
final class EmbeddedTransport: Transport {
    let base: any Transport
    private let started: @Sendable () -> Void

    init(_ base: any Transport, started: @escaping @Sendable () -> Void) {
        self.base = base
        self.started = started
    }

    var kind: TransportKind { base.kind }

    func start(delivering sink: any TransportSink) {
        base.start(delivering: sink)
        started()
    }

    func resumeDelivery() { base.resumeDelivery() }
    func send(_ message: OutboundMessage) async throws { try await base.send(message) }
    func send(_ message: OutboundMessage, flush: Bool) async throws { try await base.send(message, flush: flush) }
    func close(code: UInt16, reason: String) { base.close(code: code, reason: reason) }
    func verifyConnection(within timeout: Duration) { base.verifyConnection(within: timeout) }
    func abort() { base.abort() }
}

/// Counts the transports started on an ``EmbeddedNetwork`` and wakes the tasks waiting for the
/// n-th one.
final class StartedTransports: Sendable {
    private struct Waiter {
        var id: UInt64
        var index: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var count = 0
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }
    private let state = LockedValue(State())

    func started() {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.count += 1
            let (ready, waiting) = (s.waiters.filter { $0.index < s.count }, s.waiters.filter { $0.index >= s.count })
            s.waiters = waiting
            return ready.map(\.continuation)
        }
        for c in ready { c.resume() }
    }

    /// Returns once the transport with this index (0 for the first) was started, or when the
    /// waiting task is cancelled (a test's time limit ends a wait for a transport that never
    /// comes).
    func wait(for index: Int) async {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { s in
                    guard index >= s.count, !Task.isCancelled else { return true }
                    s.waiters.append(Waiter(id: id, index: index, continuation: c))
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: i).continuation
            }
            cancelled?.resume()
        }
    }
}
#endif

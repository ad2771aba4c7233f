import Realtime
import Synchronization
@_spi(Transport) import RealtimeCore

/// The WebSocket transport of one attempt with the Engine.IO layer on it: the server's
/// messages pass through ``EngineIOLinkMachine`` on the transport's I/O thread, so a ping is
/// answered as soon as it is read, before the event buffer (a ping behind a full buffer is
/// not read until the application catches up), and a violation or a missed
/// heartbeat ends the attempt with a ``RealtimeError`` the client's reconnect policy handles
/// (with backoff) like any network failure.
///
/// An end this layer decides closes the inner transport and replaces the `ended` it then
/// reports (`cancelled`) with the reason; what the server sends after that is dropped.
final class EngineIOTransport: Transport, TransportSink, Sendable {
    private struct State {
        var machine: EngineIOLinkMachine
        var sink: (any TransportSink)?
        /// The end this layer decided, reported in place of the inner transport's.
        var end: TransportEnd?
        var timer: ClientTimer?
    }

    let inner: any Transport
    private let state: LockedValue<State>
    private let clock: ClientClock
    private let onOpenPacket: @Sendable (EngineIOOpenPacket) -> Void

    var kind: TransportKind { inner.kind }

    init(
        inner: any Transport, maxAttachments: Int, clock: ClientClock,
        onOpenPacket: @escaping @Sendable (EngineIOOpenPacket) -> Void
    ) {
        self.inner = inner
        self.clock = clock
        self.onOpenPacket = onOpenPacket
        state = LockedValue(State(machine: EngineIOLinkMachine(maxAttachments: maxAttachments)))
    }

    func start(delivering sink: any TransportSink) {
        state.withLock { $0.sink = sink }
        inner.start(delivering: self)
    }

    func deliver(_ events: inout [TransportEvent]) -> Bool {
        var out: [TransportEvent] = []
        out.reserveCapacity(events.count)
        for event in events {
            switch event {
            case .message(let message):
                if admit(message) { out.append(event) }
            case .messages(let batch):
                for message in batch.messages where admit(message) { out.append(.message(message)) }
            case .ended(let end):
                let replaced: TransportEnd? = state.withLock { s in
                    s.timer?.cancel()
                    s.timer = nil
                    return s.end
                }
                out.append(.ended(replaced ?? end))
            case .opened, .retryHint:
                out.append(event)
            }
        }
        events.removeAll(keepingCapacity: true)
        guard let sink = state.withLock({ $0.sink }), !out.isEmpty else { return true }
        return sink.deliver(&out)
    }

    /// Runs `message` through the machine; true when it goes on to the client.
    private func admit(_ message: Message) -> Bool {
        let action = state.withLock { $0.machine.received(message) }
        switch action {
        case .deliver:
            return true
        case .deliverOpen(let open, let after, let generation):
            onOpenPacket(open)
            arm(after: after, generation: generation)
            return true
        case .pong(let after, let generation):
            arm(after: after, generation: generation)
            let inner = self.inner
            Task { try? await inner.send(.text("3")) }
            return false
        case .consume, .drop:
            return false
        case .end(let error):
            finish(error)
            return false
        }
    }

    /// Ends the attempt for a reason the Socket.IO layer found (a violation, a limit).
    func fail(_ error: RealtimeError) {
        if case .end(let error) = state.withLock({ $0.machine.failed(error) }) { finish(error) }
    }

    private func arm(after delay: Duration, generation: UInt64) {
        let timer = clock.arm(after: delay) { [weak self] in
            guard let self else { return }
            if case .end(let error) = self.state.withLock({ $0.machine.deadlinePassed(generation: generation) }) {
                self.finish(error)
            }
        }
        let previous = state.withLock { s in
            defer { s.timer = timer }
            return s.timer
        }
        previous?.cancel()
    }

    /// Closes the inner transport; its `ended` is reported as `error` (nil: a clean end).
    private func finish(_ error: RealtimeError?) {
        let end = error.map { TransportEnd(clean: false, code: $0.closeCode, error: $0) } ?? TransportEnd(clean: true, code: 1000)
        state.withLock { s in
            if s.end == nil { s.end = end }
        }
        inner.close(code: error?.closeCode ?? 1000, reason: "")
    }

    func resumeDelivery() { inner.resumeDelivery() }
    func send(_ message: OutboundMessage) async throws { try await inner.send(message) }
    func send(_ message: OutboundMessage, flush: Bool) async throws { try await inner.send(message, flush: flush) }
    func close(code: UInt16, reason: String) { inner.close(code: code, reason: reason) }
    func verifyConnection(within timeout: Duration) { inner.verifyConnection(within: timeout) }
    func abort() { inner.abort() }
}

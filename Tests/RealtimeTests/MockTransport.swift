import Realtime

/// A scripted ``Transport``: the test decides what the "server" does by calling ``emit(_:)``.
/// Keeps the contract (one `ended`, nothing after it, `close` ends with `cancelled`).
final class MockTransport: Transport, Sendable {
    let kind: TransportKind
    let events: BoundedChannel<TransportEvent>
    let request: TransportRequest

    private struct State {
        var started = false
        var closed = false
        var ended = false
        var sent: [OutboundMessage] = []
        var pausedSends = 0
        var demands = 0
        var verifications: [Duration] = []
    }
    private let state = LockedValue(State())

    init(request: TransportRequest) {
        self.request = request
        self.kind = RealtimeClient.transportKind(for: request.url) ?? .sse
        self.events = BoundedChannel(capacity: request.eventBufferCapacity)
        events.setTerminationHandler { [weak self] in self?.close() }
        events.setDemandHandler { [weak self] in self?.state.withLock { $0.demands += 1 } }
    }

    var started: Bool { state.withLock { $0.started } }
    var closed: Bool { state.withLock { $0.closed } }
    var ended: Bool { state.withLock { $0.ended } }
    var sent: [OutboundMessage] { state.withLock { $0.sent } }
    /// The timeouts of the ``verifyConnection(within:)`` calls, in order.
    var verifications: [Duration] { state.withLock { $0.verifications } }
    /// How many `emit` calls were told to pause (the channel was full).
    var pausedSends: Int { state.withLock { $0.pausedSends } }
    /// How many times the channel told the paused producer to resume.
    var demands: Int { state.withLock { $0.demands } }

    func start() {
        state.withLock { s in
            precondition(!s.started, "start() called twice")
            s.started = true
        }
    }

    /// Delivers an event as the I/O loop would; returns the channel's "keep going".
    @discardableResult
    func emit(_ event: TransportEvent) -> Bool {
        let go: Bool = state.withLock { s in
            guard !s.ended else { return false }
            if case .ended = event { s.ended = true }
            return true
        }
        guard go else { return false }
        let more = events.send(event)
        if case .ended = event { events.finish() }
        if !more { state.withLock { $0.pausedSends += 1 } }
        return more
    }

    func open(status: Int = 200) {
        emit(.opened(ConnectionInfo(transport: kind, url: request.url, status: status)))
    }

    func message(_ data: String, id: String? = nil) {
        emit(.message(kind == .sse ? .sse(type: "message", data: data, id: id ?? "") : Message(content: .text(data))))
    }

    func fail(_ error: RealtimeError, delivered: Bool = true) {
        emit(.ended(TransportEnd(clean: false, error: error, requestWasDelivered: delivered)))
    }

    func endCleanly(code: UInt16? = nil) {
        emit(.ended(TransportEnd(clean: true, code: code)))
    }

    func send(_ message: OutboundMessage) async throws {
        if kind == .sse { throw RealtimeError(.sendNotSupported) }
        try state.withLock { s in
            guard !s.ended, !s.closed else { throw RealtimeError(.notConnected) }
            s.sent.append(message)
        }
    }

    func verifyConnection(within timeout: Duration) {
        state.withLock { $0.verifications.append(timeout) }
    }

    func close(code: UInt16, reason: String) {
        state.withLock { $0.closed = true }
        emit(.ended(TransportEnd(clean: false, error: .cancelled)))
    }
}

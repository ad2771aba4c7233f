import Realtime
import Testing
@_spi(Transport) import RealtimeCore

/// A scripted ``Transport``: the test decides what the "server" does by calling ``emit(_:)``.
/// Keeps the contract (one `ended`, nothing after it, `close` ends with `cancelled`).
final class MockTransport: Transport, Sendable {
    let kind: TransportKind
    let request: TransportRequest

    struct State: Sendable {
        var started = false
        var closed = false
        var ended = false
        var sent: [OutboundMessage] = []
        var pausedSends = 0
        var demands = 0
        var verifications: [Duration] = []
        /// The close code of the client's `close(code:reason:)`, if it closed.
        var closeCode: UInt16?
    }
    private let state = Observed(State())
    /// The client's sink once started, and what was emitted before (delivered at start).
    private let delivery = LockedValue<(sink: (any TransportSink)?, early: [TransportEvent])>((nil, []))
    private let onStart: @Sendable () -> Void

    init(request: TransportRequest, onStart: @escaping @Sendable () -> Void = {}) {
        self.request = request
        self.onStart = onStart
        self.kind = RealtimeClient.transportKind(for: request.url) ?? .sse
    }

    var started: Bool { state.value.started }
    var closed: Bool { state.value.closed }
    var ended: Bool { state.value.ended }
    var sent: [OutboundMessage] { state.value.sent }
    /// The timeouts of the ``verifyConnection(within:)`` calls, in order.
    var verifications: [Duration] { state.value.verifications }
    var closeCode: UInt16? { state.value.closeCode }
    /// How many `emit` calls were told to pause (the sink was full).
    var pausedSends: Int { state.value.pausedSends }
    /// How many times the owner told the paused producer to resume.
    var demands: Int { state.value.demands }

    /// Waits until the client closed (or aborted) this transport.
    func waitUntilClosed(sourceLocation: SourceLocation = #_sourceLocation) async {
        await state.wait("the transport to be closed", sourceLocation: sourceLocation) { $0.closed }
    }

    /// Waits until at least `count` messages were sent on this transport.
    func waitForSent(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await state.wait("\(count) messages sent", sourceLocation: sourceLocation) { $0.sent.count >= count }
    }

    func start(delivering sink: any TransportSink) {
        state.update { s in
            precondition(!s.started, "start() called twice")
            s.started = true
        }
        var early = delivery.withLock { d in
            d.sink = sink
            defer { d.early = [] }
            return d.early
        }
        if !early.isEmpty { _ = sink.deliver(&early) }
        onStart()
    }

    func resumeDelivery() {
        state.update { $0.demands += 1 }
    }

    /// Delivers an event as the I/O loop would; returns the sink's "keep going".
    @discardableResult
    func emit(_ event: TransportEvent) -> Bool {
        emit(contentsOf: [event])
    }

    /// Delivers events together, as one read of the I/O loop would (the end, if any, last).
    @discardableResult
    func emit(contentsOf batch: [TransportEvent]) -> Bool {
        var go = false
        state.update { s in
            guard !s.ended else { return }
            if batch.contains(where: { if case .ended = $0 { true } else { false } }) { s.ended = true }
            go = true
        }
        guard go else { return false }
        // Delivered outside the lock: the sink may call back into this transport (close).
        guard let sink = delivery.withLock({ d -> (any TransportSink)? in
            if d.sink == nil { d.early.append(contentsOf: batch) }
            return d.sink
        }) else { return true }
        var events = batch
        let more = sink.deliver(&events)
        if !more { state.update { $0.pausedSends += 1 } }
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
        var refused = false
        state.update { s in
            guard !s.ended, !s.closed else {
                refused = true
                return
            }
            s.sent.append(message)
        }
        if refused { throw RealtimeError(.notConnected) }
    }

    func verifyConnection(within timeout: Duration) {
        state.update { $0.verifications.append(timeout) }
    }

    func close(code: UInt16, reason: String) {
        state.update {
            $0.closed = true
            $0.closeCode = $0.closeCode ?? code
        }
        emit(.ended(TransportEnd(clean: false, error: .cancelled)))
    }
}

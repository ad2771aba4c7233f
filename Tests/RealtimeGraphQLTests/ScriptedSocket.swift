import Realtime
import RealtimeGraphQL
import Synchronization
@_spi(Transport) import RealtimeCore

/// A scripted WebSocket attempt: the test plays the graphql-transport-ws server. It reads
/// what the client sent with ``nextSent()`` (in order, waiting without polling) and answers
/// with ``receive(_:)``, ``serverClose(_:reason:)`` or ``cut()``. Keeps the ``Transport``
/// contract: one `ended`, nothing after it, `close` ends with `cancelled`.
final class ScriptedSocket: Transport {
    let request: TransportRequest
    var kind: TransportKind { .webSocket }

    private struct State {
        var sink: (any TransportSink)?
        var ended = false
        /// The close the client asked for (code, reason).
        var closedWith: (UInt16, String)?
    }
    private let state = LockedValue(State())
    private let sentStream: AsyncStream<String>
    private let sentInput: AsyncStream<String>.Continuation
    private let onStart: @Sendable (ScriptedSocket) -> Void

    init(request: TransportRequest, onStart: @escaping @Sendable (ScriptedSocket) -> Void) {
        self.request = request
        self.onStart = onStart
        (sentStream, sentInput) = AsyncStream.makeStream()
    }

    // MARK: The client's side

    func start(delivering sink: any TransportSink) {
        state.withLock { $0.sink = sink }
        onStart(self)
    }

    func resumeDelivery() {}

    func send(_ message: OutboundMessage) async throws {
        guard !state.withLock({ $0.ended }) else { throw RealtimeError(.notConnected) }
        if case .text(let text) = message { sentInput.yield(text) }
    }

    func close(code: UInt16, reason: String) {
        let first = state.withLock { s in
            guard !s.ended else { return false }
            s.closedWith = (code, reason)
            return true
        }
        guard first else { return }
        emit(.ended(TransportEnd(clean: false, code: code, reason: reason, error: .cancelled)))
    }

    func verifyConnection(within timeout: Duration) {}

    // MARK: The server's side

    /// The upgrade is accepted with `subprotocol`.
    func open(subprotocol: String? = GraphQLClient.subprotocol) {
        var info = ConnectionInfo(transport: .webSocket, url: request.url, status: 101)
        info.subprotocol = subprotocol
        emit(.opened(info))
    }

    /// A text message from the server.
    func receive(_ text: String) {
        emit(.message(Message(content: .text(text))))
    }

    /// The server's close frame (as the WebSocket transport reports it, RFC 6455 §7.1.5).
    func serverClose(_ code: UInt16, reason: String = "") {
        let orderly = [1000, 1001, 1012].contains(code)
        let error = orderly ? nil : RealtimeError(.remoteClosed, detail: "server closed with \(code)", closeCode: code)
        emit(.ended(TransportEnd(clean: true, code: code, reason: reason, error: error)))
    }

    /// The connection is cut (a reset).
    func cut() {
        emit(.ended(TransportEnd(clean: false, error: RealtimeError(.network, detail: "reset"))))
    }

    /// The next text the client sent on this connection; nil once it ended and all were read.
    func nextSent() async -> String? {
        var iterator = sentStream.makeAsyncIterator()
        return await iterator.next()
    }

    /// The close code and reason the client closed with, if it closed.
    var closedWith: (code: UInt16, reason: String)? { state.withLock { $0.closedWith } }
    var ended: Bool { state.withLock { $0.ended } }

    private func emit(_ event: TransportEvent) {
        let sink: (any TransportSink)? = state.withLock { s in
            guard !s.ended else { return nil }
            if case .ended = event {
                s.ended = true
            }
            return s.sink
        }
        guard let sink else { return }
        var events = [event]
        _ = sink.deliver(&events)
        if case .ended = event { sentInput.finish() }
    }
}

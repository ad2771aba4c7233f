@_spi(Transport) import Realtime
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// Records every request the client makes and hands out ``MockTransport``s; checks that
/// attempts are single-flight (a new transport only after the previous one ended).
final class MockTransportFactory: Sendable {
    private struct State: Sendable {
        var transports: [MockTransport] = []
        var overlapping = 0
        var failure: RealtimeError?
        /// Bumped when a transport is started, so waits re-check.
        var starts = 0
    }
    private let state = Observed(State())

    var make: RealtimeClient.TransportFactory {
        { [self] request in
            var made: MockTransport?
            var failure: RealtimeError?
            state.update { s in
                if let f = s.failure {
                    failure = f
                    return
                }
                if let last = s.transports.last, !last.ended { s.overlapping += 1 }
                let t = MockTransport(request: request) { [weak self] in
                    self?.state.update { $0.starts += 1 }
                }
                s.transports.append(t)
                made = t
            }
            if let failure { throw failure }
            return made!
        }
    }

    /// Makes the factory itself throw (like a transport that cannot be built).
    func failEveryAttempt(with error: RealtimeError) { state.update { $0.failure = error } }

    var count: Int { state.value.transports.count }
    var requests: [TransportRequest] { state.value.transports.map(\.request) }
    /// Attempts started while the previous one was still live (must stay 0).
    var overlapping: Int { state.value.overlapping }

    /// The `index`-th transport (0-based) once the client has made it and started it.
    func transport(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> MockTransport? {
        let ok = await state.wait("transport \(index) started (\(count) made)", sourceLocation: sourceLocation) {
            $0.transports.count > index && $0.transports[index].started
        }
        return ok ? state.value.transports[index] : nil
    }

    /// The newest transport once it is started (after `made` transports were made before it).
    func transport(after made: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> MockTransport? {
        let ok = await state.wait("a transport after \(made) (\(count) made)", sourceLocation: sourceLocation) {
            $0.transports.count > made && $0.transports.last!.started
        }
        return ok ? state.value.transports.last : nil
    }
}

import Realtime
import Testing

/// Records every request the client makes and hands out ``MockTransport``s; checks that
/// attempts are single-flight (a new transport only after the previous one ended).
final class MockTransportFactory: Sendable {
    private struct State {
        var transports: [MockTransport] = []
        var overlapping = 0
        var failure: RealtimeError?
    }
    private let state = LockedValue(State())

    var make: RealtimeClient.TransportFactory {
        { [self] request in
            try state.withLock { s in
                if let f = s.failure { throw f }
                if let last = s.transports.last, !last.ended { s.overlapping += 1 }
                let t = MockTransport(request: request)
                s.transports.append(t)
                return t
            }
        }
    }

    /// Makes the factory itself throw (like a transport that cannot be built).
    func failEveryAttempt(with error: RealtimeError) { state.withLock { $0.failure = error } }

    var count: Int { state.withLock { $0.transports.count } }
    var requests: [TransportRequest] { state.withLock { $0.transports.map(\.request) } }
    /// Attempts started while the previous one was still live (must stay 0).
    var overlapping: Int { state.withLock { $0.overlapping } }

    /// The `index`-th transport (0-based) once the client has made it and started it.
    func transport(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> MockTransport? {
        let ok = await eventually("transport \(index) started", sourceLocation: sourceLocation) {
            self.state.withLock { $0.transports.count > index && $0.transports[index].started }
        }
        return ok ? state.withLock { $0.transports[index] } : nil
    }
}

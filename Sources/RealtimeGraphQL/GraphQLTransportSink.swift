import Realtime
@_spi(Transport) import RealtimeCore

/// The sink a ``GraphQLTransport`` gives its inner transport: passes every event on, with the
/// attempt's end rewritten by the session.
final class GraphQLTransportSink: TransportSink {
    private let outer: any TransportSink
    // Weak: the inner transport holds this sink, and the wrapper holds the inner transport.
    private weak let transport: GraphQLTransport?

    init(outer: any TransportSink, transport: GraphQLTransport) {
        self.outer = outer
        self.transport = transport
    }

    func deliver(_ events: inout [TransportEvent]) -> Bool {
        for index in events.indices {
            if case .ended(let end) = events[index], let transport {
                events[index] = .ended(transport.ended(end))
            }
        }
        return outer.deliver(&events)
    }
}

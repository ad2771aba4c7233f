
/// The observer bookkeeping shared by monitors: registration, cancellation, and delivery of
/// a status to every handler outside the lock (a handler may cancel itself).
///
/// Delivery order is guaranteed only when ``publish(_:)`` is called from one thread at a
/// time (the monitors call it from their single source of changes).
package final class NetworkObservers: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var handlers: [UInt64: @Sendable (NetworkStatus) -> Void] = [:]
    }
    private let state = LockedValue(State())

    package init() {}

    package func add(_ handler: @escaping @Sendable (NetworkStatus) -> Void) -> NetworkObservation {
        state.withLock { s in
            s.nextID += 1
            s.handlers[s.nextID] = handler
            return NetworkObservation(id: s.nextID)
        }
    }

    package func remove(_ observation: NetworkObservation) {
        _ = state.withLock { $0.handlers.removeValue(forKey: observation.id) }
    }

    package var count: Int { state.withLock { $0.handlers.count } }

    package func publish(_ status: NetworkStatus) {
        let handlers = state.withLock { s in s.handlers.sorted { $0.key < $1.key }.map(\.value) }
        for h in handlers { h(status) }
    }
}

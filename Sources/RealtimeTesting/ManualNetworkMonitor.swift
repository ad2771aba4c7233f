@_spi(Transport) import RealtimeCore


/// A ``NetworkMonitor`` driven by hand: tests (and apps with their own reachability
/// source) call ``setReachable(_:)`` and ``signalPathChange()``. Handlers run synchronously
/// on the calling thread.
public final class ManualNetworkMonitor: NetworkMonitor {
    private let status: LockedValue<NetworkStatus>
    private let observers = NetworkObservers()

    /// Starts `reachable` (default) or `unreachable`.
    public init(reachable: Bool = true) {
        status = LockedValue(NetworkStatus(reachability: reachable ? .reachable : .unreachable))
    }

    public var currentStatus: NetworkStatus { status.withLock { $0 } }

    public func observe(_ handler: @escaping @Sendable (NetworkStatus) -> Void) -> NetworkObservation {
        observers.add(handler)
    }

    public func cancel(_ observation: NetworkObservation) {
        observers.remove(observation)
    }

    /// Number of live observations (tests check that a closed client let go).
    package var observerCount: Int { observers.count }

    /// Changes reachability (a path change too); no-op when unchanged.
    public func setReachable(_ reachable: Bool) {
        let next: NetworkStatus? = status.withLock { s in
            let r: NetworkStatus.Reachability = reachable ? .reachable : .unreachable
            guard s.reachability != r else { return nil }
            s.reachability = r
            s.pathGeneration &+= 1
            return s
        }
        if let next { observers.publish(next) }
    }

    /// Reports that the path changed while reachability stayed the same (a new address,
    /// another interface took over).
    public func signalPathChange() {
        let next = status.withLock { s in
            s.pathGeneration &+= 1
            return s
        }
        observers.publish(next)
    }
}

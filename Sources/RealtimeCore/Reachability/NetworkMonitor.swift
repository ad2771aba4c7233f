/// Tells `RealtimeClient` whether the network can be used and when the path changes.
///
/// The contract every conformer keeps:
/// 1. ``currentStatus`` is cheap and callable from any thread.
/// 2. Handlers given to ``observe(_:)`` are called, one at a time and in order, with every
///    later status whose `reachability` or `pathGeneration` differs from the previous one.
///    They may run on any thread (for the Linux monitor: the I/O loop thread), so they must
///    return quickly and must not block.
/// 3. After ``cancel(_:)`` returns, the handler is not called again (a call already
///    running may finish).
///
/// Implementations: `LinuxNetworkMonitor` (netlink, in `RealtimeIO`),
/// `ManualNetworkMonitor` (tests, in `RealtimeTesting`). On Apple platforms an `NWPathMonitor` wrapper fits the
/// same shape (`.satisfied` → reachable, every path update → a new `pathGeneration`).
public protocol NetworkMonitor: AnyObject, Sendable {
    /// The latest known status.
    var currentStatus: NetworkStatus { get }

    /// Registers `handler` for status changes after this call.
    func observe(_ handler: @escaping @Sendable (NetworkStatus) -> Void) -> NetworkObservation

    /// Stops an observation. Idempotent.
    func cancel(_ observation: NetworkObservation)
}

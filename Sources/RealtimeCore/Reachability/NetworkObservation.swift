/// A registration returned by ``NetworkMonitor/observe(_:)``; pass it to
/// ``NetworkMonitor/cancel(_:)`` to stop.
public struct NetworkObservation: Sendable, Hashable {
    /// Identifies the registration within its monitor.
    public let id: UInt64
    /// A registration with this id (for monitors of your own).
    public init(id: UInt64) { self.id = id }
}

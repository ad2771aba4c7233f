/// A registration returned by ``NetworkMonitor/observe(_:)``; pass it to
/// ``NetworkMonitor/cancel(_:)`` to stop.
public struct NetworkObservation: Sendable, Hashable {
    public let id: UInt64
    public init(id: UInt64) { self.id = id }
}

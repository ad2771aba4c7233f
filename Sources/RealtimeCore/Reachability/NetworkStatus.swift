/// What a ``NetworkMonitor`` knows about the network path, at one moment.
public struct NetworkStatus: Sendable, Hashable, CustomStringConvertible {
    /// Whether a usable path exists.
    public enum Reachability: String, Sendable, Hashable {
        /// Not measured yet (treated as reachable: never block on missing knowledge).
        case unknown
        /// At least one usable interface with an address and a route.
        case reachable
        /// No usable path: connecting is pointless until this changes.
        case unreachable
    }

    /// Whether a usable path exists.
    public var reachability: Reachability
    /// Increments on every change of interfaces, addresses or routes (a "path changed"
    /// signal), whether or not ``reachability`` changed. Only differences matter.
    public var pathGeneration: UInt64

    /// A status; for monitors of your own and tests.
    public init(reachability: Reachability, pathGeneration: UInt64 = 0) {
        self.reachability = reachability
        self.pathGeneration = pathGeneration
    }

    /// False only when the monitor positively knows there is no path.
    public var isUsable: Bool { reachability != .unreachable }

    public var description: String { "\(reachability.rawValue)#\(pathGeneration)" }
}

import RealtimeCore

/// A small cache of renderings keyed by the options that produced them.
final class SSERenderingCache: Sendable {
    /// Distinct configurations kept; the cache is emptied when a new one would exceed it.
    static let capacity = 16
    private let entries = LockedValue<[SSEStreamOptions: SSERendering]>([:])

    func rendering(for options: SSEStreamOptions) -> SSERendering {
        if let cached = entries.withLock({ $0[options] }) { return cached }
        let rendering = SSERendering(options)
        entries.withLock {
            if $0.count >= Self.capacity { $0.removeAll() }
            $0[options] = rendering
        }
        return rendering
    }
}

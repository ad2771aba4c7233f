import Synchronization

/// The whole body of one `/sse` configuration, rendered once and shared by every
/// connection (a 10,000-event soak test reconnects 100 times; rendering per connection
/// in a debug build would dominate the test's time).
struct SSERendering: Sendable {
    /// Preamble then every event, `start…lastID`.
    let full: [UInt8]
    let preambleCount: Int
    /// Offset in `full` where each event starts, indexed by `id - start`.
    let eventStarts: [Int]

    init(_ options: SSEStreamOptions) {
        var full = options.preamble
        let preambleCount = full.count
        var starts: [Int] = []
        starts.reserveCapacity(options.count)
        if options.count > 0 {
            for id in options.start...options.lastID {
                starts.append(full.count)
                full += options.event(id: id)
            }
        }
        self.full = full
        self.preambleCount = preambleCount
        self.eventStarts = starts
    }

    /// What a request resuming after `lastEventID` receives (same bytes as ``SSEStreamOptions/body(resumingAfter:)``).
    func body(_ options: SSEStreamOptions, resumingAfter lastEventID: Int?) -> [UInt8] {
        guard let ids = options.ids(resumingAfter: lastEventID) else { return Array(full[0..<preambleCount]) }
        let from = eventStarts[ids.lowerBound - options.start]
        if from == preambleCount { return full }
        return Array(full[0..<preambleCount]) + full[from...]
    }
}

/// A small cache of renderings keyed by the options that produced them.
final class SSERenderingCache: Sendable {
    /// Distinct configurations kept; the cache is emptied when a new one would exceed it.
    static let capacity = 16
    private let entries = Mutex<[SSEStreamOptions: SSERendering]>([:])

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

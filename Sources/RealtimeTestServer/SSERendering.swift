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

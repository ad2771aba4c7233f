/// A transport's side of its `TransportSink`: the I/O thread's handle for delivering events,
/// confined to that thread (a stored `var` of the connection object).
///
/// Keeps two rules of the contract for every transport: nothing is delivered after `ended`, and
/// an attempt that ends before it has a sink (closed before `Transport.start(delivering:)`)
/// keeps what it would have delivered (its `ended`) until the sink arrives.
package struct TransportOutlet {
    private var sink: (any TransportSink)?
    /// Events that arrived before the sink (an attempt closed before it started).
    private var early: [TransportEvent] = []
    /// Reused for single events, so delivering one does not allocate an array each time.
    private var single: [TransportEvent] = []
    private var finished = false

    package init() {}

    /// Connects the sink and hands it what arrived before it. Once only.
    package mutating func attach(_ sink: any TransportSink) {
        precondition(self.sink == nil, "a transport is started once")
        self.sink = sink
        guard !early.isEmpty else { return }
        _ = sink.deliver(&early)
        if finished { self.sink = nil }
    }

    /// Delivers one event. Returns false when the sink is full (pause reading).
    @discardableResult
    package mutating func send(_ event: TransportEvent) -> Bool {
        var one: [TransportEvent] = []
        swap(&one, &single)
        one.append(event)
        let more = send(draining: &one)
        swap(&one, &single)
        return more
    }

    /// Delivers `events` in order and leaves the array empty (its storage kept). Returns false
    /// when the sink is full (pause reading). Discarded after ``finish()``.
    @discardableResult
    package mutating func send(draining events: inout [TransportEvent]) -> Bool {
        guard !events.isEmpty else { return true }
        guard !finished else {
            events.removeAll(keepingCapacity: true)
            return true
        }
        guard let sink else {
            early.append(contentsOf: events)
            events.removeAll(keepingCapacity: true)
            return true
        }
        let more = sink.deliver(&events)
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        return more
    }

    /// The attempt delivered its `ended`: nothing more goes to the sink, which is released.
    package mutating func finish() {
        finished = true
        if sink != nil { sink = nil }
    }
}

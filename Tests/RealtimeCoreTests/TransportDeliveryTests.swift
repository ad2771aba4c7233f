import Synchronization
import Testing
@_spi(Transport) @testable import RealtimeCore

/// A transport reduced to its delivery: the test delivers into the sink it was started with,
/// as the I/O thread would, and sees what the owner asked of it.
private final class ScriptedTransport: Transport {
    let kind = TransportKind.sse
    let sink = LockedValue<(any TransportSink)?>(nil)
    let resumes = Atomic<Int>(0)
    let closes = Atomic<Int>(0)

    func start(delivering sink: any TransportSink) { self.sink.withLock { $0 = sink } }
    func resumeDelivery() { resumes.add(1, ordering: .relaxed) }
    func send(_ message: OutboundMessage) async throws { throw RealtimeError(.sendNotSupported) }
    func verifyConnection(within timeout: Duration) {}
    func close(code: UInt16, reason: String) { closes.add(1, ordering: .relaxed) }

    /// Delivers `events` as one read; returns the sink's "keep going".
    func deliver(_ events: [TransportEvent]) -> Bool {
        var events = events
        guard let sink = sink.withLock({ $0 }) else { return true }
        let more = sink.deliver(&events)
        #expect(events.isEmpty, "a sink takes every event it is given")
        return more
    }
}

/// Collects what it is given; full at `capacity` events.
private final class RecordingSink: TransportSink {
    let received = LockedValue<[TransportEvent]>([])
    let capacity: Int

    init(capacity: Int = .max) { self.capacity = capacity }

    var count: Int { received.withLock { $0.count } }

    func deliver(_ events: inout [TransportEvent]) -> Bool {
        received.withLock { r in
            r.append(contentsOf: events)
            events.removeAll()
            return r.count < capacity
        }
    }
}

private func message(_ text: String) -> TransportEvent { .message(Message(content: .text(text))) }
private let cancelled = TransportEvent.ended(TransportEnd(clean: false, error: .cancelled))

private extension TransportEvent {
    var text: String? {
        if case .message(let m) = self { return m.text }
        return nil
    }
    var isEnd: Bool {
        if case .ended = self { return true }
        return false
    }
}

@Suite(.timeLimit(.minutes(1))) struct TransportOutletTests {
    @Test func deliversInOrderAndReportsAFullSink() {
        let sink = RecordingSink(capacity: 3)
        var outlet = TransportOutlet()
        outlet.attach(sink)
        let first = outlet.send(message("a"))
        #expect(first)
        var batch = [message("b"), message("c")]
        let second = outlet.send(draining: &batch)
        #expect(second == false, "the sink is full: pause reading")
        #expect(batch.isEmpty)
        #expect(sink.received.withLock { $0.compactMap(\.text) } == ["a", "b", "c"])
    }

    @Test func anEndBeforeTheSinkIsDeliveredWhenItArrives() {
        var outlet = TransportOutlet()
        let early = outlet.send(cancelled)
        #expect(early)
        outlet.finish()
        let late = outlet.send(message("late"))
        #expect(late, "discarded after the end, never a pause")
        let sink = RecordingSink()
        outlet.attach(sink)
        let received = sink.received.withLock { $0 }
        #expect(received.count == 1 && received.first?.isEnd == true)
    }

    @Test func nothingAfterTheEndAndTheSinkIsReleased() {
        weak var released: RecordingSink?
        var outlet = TransportOutlet()
        do {
            let sink = RecordingSink()
            released = sink
            outlet.attach(sink)
        }
        outlet.send(message("a"))
        outlet.send(cancelled)
        outlet.finish()
        #expect(released == nil, "the transport lets go of its owner's sink at the end")
        outlet.send(message("after"))
    }
}

@Suite(.timeLimit(.minutes(1))) struct TransportEventsTests {
    @Test func startsTheTransportAndYieldsItsEventsUntilTheEnd() async {
        let transport = ScriptedTransport()
        let events = TransportEvents(transport, capacity: 8)
        #expect(transport.deliver([message("a"), message("b")]))
        #expect(transport.deliver([message("c"), cancelled]))
        var got: [TransportEvent] = []
        for await event in events { got.append(event) }
        #expect(got.compactMap(\.text) == ["a", "b", "c"])
        #expect(got.last?.isEnd == true && got.count == 4)
    }

    @Test func aFullBufferPausesTheTransportUntilHalfIsTaken() async {
        let transport = ScriptedTransport()
        let events = TransportEvents(transport, capacity: 4)
        #expect(transport.deliver([message("0"), message("1")]))
        #expect(transport.deliver([message("2"), message("3")]) == false, "full at capacity")
        #expect(transport.deliver([message("4")]) == false, "kept, never dropped")
        var iterator = events.makeAsyncIterator()
        _ = await iterator.next()
        _ = await iterator.next()
        #expect(transport.resumes.load(ordering: .relaxed) == 0, "3 left: more than half")
        _ = await iterator.next()
        #expect(transport.resumes.load(ordering: .relaxed) == 1, "half taken: read again")
        #expect(await iterator.next()?.text == "3")
        #expect(await iterator.next()?.text == "4")
        #expect(events.bufferedCount == 0)
    }

    @Test func aCancelledConsumerClosesTheTransport() async {
        let transport = ScriptedTransport()
        let events = TransportEvents(transport, capacity: 4)
        let consumer = Task {
            for await _ in events {}
        }
        consumer.cancel()
        await consumer.value
        #expect(transport.closes.load(ordering: .relaxed) == 1)
        #expect(transport.deliver([message("late")]), "after the consumer left: discarded")
    }
}

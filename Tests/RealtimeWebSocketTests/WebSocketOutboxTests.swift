import Testing
import RealtimeCore
@testable import RealtimeWebSocket

/// The outbound queue's rules, with plain ids for senders: acceptance without waiting, order,
/// the bounds in messages and bytes, flush senders riding with their message, and what close
/// and cancellation do.
@Suite(.timeLimit(.minutes(1))) struct WebSocketOutboxTests {
    typealias Outbox = WebSocketOutbox<Int>

    static func blob(_ n: Int) -> OutboundMessage { .binary([UInt8](repeating: 0, count: n)) }

    static func accepted(_ action: Outbox.SubmitAction?) -> Bool? {
        if case .accepted(let drain)? = action { return drain }
        return nil
    }

    static func texts(_ entries: [Outbox.Entry]) -> [String] {
        entries.map { entry in
            if case .text(let text) = entry.message { return text }
            return "<\(entry.message.payloadSize) B>"
        }
    }

    @Test func acceptsWithoutWaitingAndAsksForOneDrain() {
        var outbox = Outbox(capacity: 3, maxBytes: 1 << 20)
        let first = outbox.offer(.text("a"))
        let second = outbox.offer(.text("b"))
        #expect(Self.accepted(first) == true, "the first acceptance asks for a drain")
        #expect(Self.accepted(second) == false, "one drain covers everything until it runs")
        let ready = outbox.takeReady()
        #expect(Self.texts(ready) == ["a", "b"])
        let third = outbox.offer(.text("c"))
        #expect(Self.accepted(third) == true, "after a drain, the next acceptance asks again")
    }

    @Test func theMessageBoundMakesSendersWaitInOrder() {
        var outbox = Outbox(capacity: 2, maxBytes: 1 << 20)
        _ = outbox.offer(.text("a"))
        _ = outbox.offer(.text("b"))
        let full = outbox.offer(.text("c"))
        #expect(full == nil, "no room: the sender must wait")
        guard case .waiting = outbox.submit(.text("c"), 3, flush: false, id: 3),
              case .waiting = outbox.submit(.text("d"), 4, flush: true, id: 4) else {
            Issue.record("senders beyond the bound wait")
            return
        }
        _ = outbox.takeReady()
        let admission = outbox.completed(count: 2, bytes: 2)
        #expect(admission.resume == [3], "a non-flush sender resumes once accepted")
        #expect(admission.drain)
        let ready = outbox.takeReady()
        #expect(Self.texts(ready) == ["c", "d"])
        #expect(ready.map(\.flushWaiter) == [nil, 4], "a flush sender rides with its message")
    }

    @Test func bytesBoundTheQueueToo() {
        var outbox = Outbox(capacity: 64, maxBytes: 1000)
        _ = outbox.offer(Self.blob(600))
        let over = outbox.offer(Self.blob(600))
        #expect(over == nil, "1200 bytes would pass the bound")
        #expect(outbox.inFlightBytes == 600)
        _ = outbox.submit(Self.blob(600), 2, flush: false, id: 2)
        // Would fit, but must not overtake the waiting sender.
        let small = outbox.offer(Self.blob(10))
        #expect(small == nil)
        _ = outbox.takeReady()
        let admission = outbox.completed(count: 1, bytes: 600)
        #expect(admission.resume == [2])
        #expect(outbox.inFlightBytes == 600)
    }

    /// A message larger than the byte bound could never fit: it goes alone.
    @Test func anOversizedMessageGoesAlone() {
        var outbox = Outbox(capacity: 64, maxBytes: 100)
        let big = outbox.offer(Self.blob(5000))
        #expect(Self.accepted(big) != nil)
        #expect(outbox.offer(Self.blob(1)) == nil)
        _ = outbox.submit(Self.blob(1), 2, flush: false, id: 2)
        _ = outbox.takeReady()
        #expect(outbox.completed(count: 1, bytes: 5000).resume == [2])
    }

    /// A flush send accepted at once keeps its waiter with the message.
    @Test func aFlushSenderWaitsForTheWrite() {
        var outbox = Outbox(capacity: 4, maxBytes: 1000)
        let action = outbox.submit(.text("x"), 7, flush: true, id: 7)
        #expect(Self.accepted(action) == true)
        #expect(outbox.takeReady().map(\.flushWaiter) == [7])
    }

    /// close(): senders still waiting fail at once; what was accepted stays to be written
    /// before the close frame. A connection that ends drops it and fails its flush senders.
    @Test func stoppingKeepsAcceptedMessagesDiscardingDropsThem() {
        var outbox = Outbox(capacity: 2, maxBytes: 1000)
        _ = outbox.offer(.text("a"))
        _ = outbox.submit(.text("b"), 2, flush: true, id: 2)
        _ = outbox.submit(.text("c"), 3, flush: false, id: 3)
        #expect(outbox.stopAccepting() == [3])
        guard case .rejected(let error) = outbox.offer(.text("d")) else {
            Issue.record("nothing is accepted after stopAccepting")
            return
        }
        #expect(error.code == .notConnected)
        #expect(outbox.discardReady() == [2])
        #expect(outbox.inFlight == 0 && outbox.inFlightBytes == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() {
        var outbox = Outbox(capacity: 1, maxBytes: 1000)
        _ = outbox.offer(.text("a"))
        _ = outbox.submit(.text("b"), 2, flush: false, id: 2)
        #expect(outbox.cancelWaiting(id: 2) == 2)
        #expect(outbox.cancelWaiting(id: 1) == nil, "an accepted message is past the point of no return")
        _ = outbox.takeReady()
        let admission = outbox.completed(count: 1, bytes: 1)
        #expect(admission.resume.isEmpty && !admission.drain, "nobody left to accept")
    }
}

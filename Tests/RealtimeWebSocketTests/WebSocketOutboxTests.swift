import Testing
import RealtimeCore
@testable import RealtimeWebSocket

/// The outbound queue's admission rules, with plain ids for senders: order, the bound in
/// messages, the bound in bytes, and the message too large for the byte bound.
@Suite(.timeLimit(.minutes(1))) struct WebSocketOutboxTests {
    typealias Outbox = WebSocketOutbox<Int>

    static func blob(_ n: Int) -> OutboundMessage { .binary([UInt8](repeating: 0, count: n)) }

    @Test func admitsUpToTheMessageBoundInOrder() {
        var outbox = Outbox(capacity: 2, maxBytes: 1 << 20)
        guard case .scheduleDrain = outbox.submit(.text("a"), 1, id: 1) else {
            Issue.record("the first admission schedules a drain")
            return
        }
        guard case .none = outbox.submit(.text("b"), 2, id: 2), case .none = outbox.submit(.text("c"), 3, id: 3) else {
            Issue.record("later submissions wait for the scheduled drain or for room")
            return
        }
        let ready1 = outbox.takeReady().map(\.1)
        #expect(ready1 == [1, 2])
        let drain0 = outbox.completed(.text("a"))
        #expect(drain0, "room: the waiting sender is admitted")
        let ready2 = outbox.takeReady().map(\.1)
        #expect(ready2 == [3])
    }

    @Test func bytesBoundTheQueueToo() {
        var outbox = Outbox(capacity: 64, maxBytes: 1000)
        _ = outbox.submit(Self.blob(600), 1, id: 1)
        _ = outbox.submit(Self.blob(600), 2, id: 2)
        _ = outbox.submit(Self.blob(10), 3, id: 3)
        let ready3 = outbox.takeReady().map(\.1)
        #expect(ready3 == [1], "1200 bytes would pass the bound: the second waits")
        #expect(outbox.inFlightBytes == 600)
    }

    @Test func waitersAreAdmittedAsBytesFreeUpNeverOvertaken() {
        var outbox = Outbox(capacity: 64, maxBytes: 1000)
        _ = outbox.submit(Self.blob(900), 1, id: 1)
        _ = outbox.submit(Self.blob(500), 2, id: 2)
        _ = outbox.submit(Self.blob(10), 3, id: 3) // would fit, but must not overtake 2
        let ready4 = outbox.takeReady().map(\.1)
        #expect(ready4 == [1])
        let drain1 = outbox.completed(Self.blob(900))
        #expect(drain1)
        let ready5 = outbox.takeReady().map(\.1)
        #expect(ready5 == [2, 3])
        #expect(outbox.inFlightBytes == 510)
    }

    /// A message larger than the byte bound could never fit: it goes alone.
    @Test func anOversizedMessageGoesAlone() {
        var outbox = Outbox(capacity: 64, maxBytes: 100)
        _ = outbox.submit(Self.blob(5000), 1, id: 1)
        _ = outbox.submit(Self.blob(1), 2, id: 2)
        let ready6 = outbox.takeReady().map(\.1)
        #expect(ready6 == [1])
        let drain2 = outbox.completed(Self.blob(5000))
        #expect(drain2)
        let ready7 = outbox.takeReady().map(\.1)
        #expect(ready7 == [2])
    }

    @Test func stopAcceptingReturnsEverySenderNotYetHandedOver() {
        var outbox = Outbox(capacity: 1, maxBytes: 1000)
        _ = outbox.submit(.text("a"), 1, id: 1)
        _ = outbox.submit(.text("b"), 2, id: 2)
        let rejected = outbox.stopAccepting()
        #expect(rejected.sorted() == [1, 2])
        #expect(outbox.inFlight == 0 && outbox.inFlightBytes == 0)
        guard case .rejected(let error) = outbox.submit(.text("c"), 3, id: 3) else {
            Issue.record("no admission after stopAccepting")
            return
        }
        #expect(error.code == .notConnected)
    }

    @Test func aCancelledWaiterLeavesTheQueue() {
        var outbox = Outbox(capacity: 1, maxBytes: 1000)
        _ = outbox.submit(.text("a"), 1, id: 1)
        _ = outbox.submit(.text("b"), 2, id: 2)
        let cancelled = outbox.cancelWaiting(id: 2)
        let admitted = outbox.cancelWaiting(id: 1)
        #expect(cancelled == 2)
        #expect(admitted == nil, "an admitted message is past the point of no return")
        _ = outbox.takeReady()
        let drain3 = outbox.completed(.text("a"))
        #expect(!drain3, "nobody left to admit")
    }
}

import RealtimeTestSupport
import Testing

@testable import RealtimeCore
import RealtimeWebSocket

/// The WebSocket send queue as tables, with plain ids for senders: acceptance without waiting,
/// order, the bounds in messages and bytes, flush senders riding with their message, and what
/// each phase of the connection (connecting, open, closing, closed) does with what is queued.
@Suite(.timeLimit(.minutes(1))) struct WebSocketSendMachineTests {
    typealias Sends = WebSocketSendMachine<Int>

    static func blob(_ n: Int) -> OutboundMessage { .binary([UInt8](repeating: 0, count: n)) }

    static func accepted(_ action: Sends.SubmitAction?) -> Bool? {
        if case .accepted(let drain)? = action { return drain }
        return nil
    }

    static func isWaiting(_ action: Sends.SubmitAction) -> Bool {
        if case .waiting = action { return true }
        return false
    }

    static func rejection(_ action: Sends.SubmitAction?) -> RealtimeError? {
        if case .rejected(let error)? = action { return error }
        return nil
    }

    static func texts(_ entries: [Sends.Entry]) -> [String] {
        entries.map { entry in
            if case .text(let text) = entry.message { return text }
            return "<\(entry.size) B>"
        }
    }

    static func open(capacity: Int = 8, maxBytes: Int = 1 << 20) -> Sends {
        var sends = Sends(capacity: capacity, maxBytes: maxBytes)
        #expect(sends.opened().isEmpty)
        return sends
    }

    // MARK: - Acceptance and drains

    @Test func acceptsWithoutWaitingAndAsksForOneDrain() {
        var sends = Self.open(capacity: 3)
        let first = sends.offer(.text("a"))
        let second = sends.offer(.text("b"))
        #expect(Self.accepted(first) == true, "the first acceptance asks for a drain")
        #expect(Self.accepted(second) == false, "one drain covers everything until it runs")
        #expect(Self.texts(sends.takeWritable()) == ["a", "b"])
        #expect(Self.accepted(sends.offer(.text("c"))) == true, "after a drain, the next acceptance asks again")
    }

    /// Before open, messages are accepted (non-flush senders return) but no drain is asked
    /// for: they stay in the one queue and the open hands them out, in order.
    @Test func sendsBeforeOpenWaitInTheQueueAndGoOutOnOpen() {
        var sends = Sends(capacity: 8, maxBytes: 1 << 20)
        #expect(sends.phase == .connecting)
        #expect(Self.accepted(sends.offer(.text("a"))) == false, "no drain before open")
        #expect(Self.accepted(sends.submit(.text("b"), waiter: 2, flush: true, id: 2)) == false)
        #expect(sends.takeWritable().isEmpty, "a drain before open writes nothing")
        #expect(sends.acceptedCount == 2 && sends.inFlight == 2)
        let early = sends.opened()
        #expect(Self.texts(early) == ["a", "b"])
        #expect(early.map(\.waiter) == [nil, 2], "the flush sender rides with its message")
        #expect(sends.queuedCount == 0 && sends.inFlight == 2, "in flight until the write completes")
        #expect(Self.accepted(sends.offer(.text("c"))) == true, "once open, acceptance asks for a drain")
    }

    @Test func theMessageBoundMakesSendersWaitInOrder() {
        var sends = Self.open(capacity: 2)
        _ = sends.offer(.text("a"))
        _ = sends.offer(.text("b"))
        #expect(sends.offer(.text("c")) == nil, "no room: the sender must wait")
        #expect(Self.isWaiting(sends.submit(.text("c"), waiter: 3, flush: false, id: 3)))
        #expect(Self.isWaiting(sends.submit(.text("d"), waiter: 4, flush: true, id: 4)))
        #expect(sends.waitingCount == 2)
        #expect(Self.texts(sends.takeWritable()) == ["a", "b"], "only accepted messages are written")
        let admission = sends.completed(count: 2, bytes: 2)
        #expect(admission.resume == [3], "a non-flush sender resumes once accepted")
        #expect(admission.drain)
        let next = sends.takeWritable()
        #expect(Self.texts(next) == ["c", "d"])
        #expect(next.map(\.waiter) == [nil, 4], "a flush sender rides with its message")
    }

    @Test func bytesBoundTheQueueToo() {
        var sends = Self.open(capacity: 64, maxBytes: 1000)
        _ = sends.offer(Self.blob(600))
        #expect(sends.offer(Self.blob(600)) == nil, "1200 bytes would pass the bound")
        #expect(sends.inFlightBytes == 600)
        _ = sends.submit(Self.blob(600), waiter: 2, flush: false, id: 2)
        #expect(sends.offer(Self.blob(10)) == nil, "would fit, but must not overtake the waiting sender")
        _ = sends.takeWritable()
        #expect(sends.completed(count: 1, bytes: 600).resume == [2])
        #expect(sends.inFlightBytes == 600)
    }

    /// A message larger than the byte bound could never fit: it goes alone.
    @Test func anOversizedMessageGoesAlone() {
        var sends = Self.open(capacity: 64, maxBytes: 100)
        #expect(Self.accepted(sends.offer(Self.blob(5000))) != nil)
        #expect(sends.offer(Self.blob(1)) == nil)
        _ = sends.submit(Self.blob(1), waiter: 2, flush: false, id: 2)
        _ = sends.takeWritable()
        #expect(sends.completed(count: 1, bytes: 5000).resume == [2])
    }

    @Test func aCancelledWaiterLeavesTheQueue() {
        var sends = Self.open(capacity: 1)
        _ = sends.offer(.text("a"))
        _ = sends.submit(.text("b"), waiter: 2, flush: false, id: 2)
        #expect(sends.cancelWaiting(id: 2) == 2)
        #expect(sends.cancelWaiting(id: 0) == nil, "an accepted message is past the point of no return")
        _ = sends.takeWritable()
        let admission = sends.completed(count: 1, bytes: 1)
        #expect(admission.resume.isEmpty && !admission.drain, "nobody left to accept")
    }

    // MARK: - Closing and the end

    /// `close()`/`abort()` from the caller: waiting senders fail with `connection closing`, a
    /// later send with `connection closed`; what was accepted stays for the connection.
    @Test func stopAcceptingFailsWaitersKeepsAccepted() {
        var sends = Self.open(capacity: 2, maxBytes: 1000)
        _ = sends.offer(.text("a"))
        _ = sends.submit(.text("b"), waiter: 2, flush: true, id: 2)
        _ = sends.submit(.text("c"), waiter: 3, flush: false, id: 3)
        #expect(sends.stopAccepting() == [3])
        #expect(Self.rejection(sends.offer(.text("d"))) == Sends.closedError)
        #expect(Self.rejection(sends.submit(.text("e"), waiter: 5, flush: true, id: 5)) == Sends.closedError)
        #expect(Self.texts(sends.takeWritable()) == ["a", "b"], "accepted messages are still written")
    }

    /// Which errors each way out gives, and what happens to accepted messages.
    @Test(arguments: [
        (Sends.Closing.handshake, ["a", "b"], [3], Sends.closingError),
        (Sends.Closing.failing, ["a", "b"], [3], Sends.failedError),
        (Sends.Closing.failingAfterCloseFrame, [], [3, 2], Sends.failedError),
    ] as [(Sends.Closing, [String], [Int], RealtimeError)])
    func closingWritesAcceptedBeforeTheCloseFrame(closing: Sends.Closing, write: [String], fail: [Int], error: RealtimeError) {
        var sends = Self.open(capacity: 2, maxBytes: 1000)
        _ = sends.offer(.text("a"))
        _ = sends.submit(.text("b"), waiter: 2, flush: true, id: 2)
        _ = sends.submit(.text("c"), waiter: 3, flush: true, id: 3)
        let resolution = sends.closingStarted(closing)
        #expect(Self.texts(resolution.write) == write)
        #expect(resolution.fail == fail)
        #expect(resolution.error == error)
        #expect(sends.phase == .closing && !sends.accepting)
        #expect(Self.rejection(sends.offer(.text("late"))) == Sends.closedError, "a send while closing")
        #expect(sends.takeWritable().isEmpty)
    }

    /// The end (in any phase): every sender still waiting fails with `connection closed`,
    /// accepted messages never written give their room back; written ones settle through
    /// their write's completion, which accepts nobody any more.
    @Test(arguments: [Sends.Phase.connecting, .open, .closing])
    func theEndFailsEveryWaitingSender(phase: Sends.Phase) {
        var sends = Sends(capacity: 2, maxBytes: 1000)
        if phase != .connecting { _ = sends.opened() }
        _ = sends.offer(.text("a"))
        if phase == .open { #expect(Self.texts(sends.takeWritable()) == ["a"]) }
        _ = sends.submit(.text("b"), waiter: 2, flush: true, id: 2)
        _ = sends.submit(.text("c"), waiter: 3, flush: false, id: 3)
        var expected = [3, 2]
        if phase == .closing {
            let closing = sends.closingStarted(.handshake)
            #expect(closing.fail == [3] && Self.texts(closing.write) == ["a", "b"])
            expected = []
        }
        let end = sends.ended()
        #expect(end.error == Sends.closedError)
        #expect(Set(end.fail) == Set(expected))
        #expect(sends.phase == .closed && sends.queuedCount == 0)
        let written = phase == .connecting ? 0 : (phase == .open ? 1 : 2)
        #expect(sends.inFlight == written, "what the stream holds settles through its completion")
        #expect(sends.completed(count: written, bytes: written).resume.isEmpty)
        #expect(sends.inFlight == 0 && sends.inFlightBytes == 0)
        #expect(Self.rejection(sends.offer(.text("late"))) == Sends.closedError)
    }

    // MARK: - Seeded sequences

    /// Random sends, cancellations, drains and completions, in any phase order the connection
    /// allows: order and the bounds hold after every step, and every sender is resolved once.
    @Test func randomSequencesKeepOrderBoundsAndResolveEverySender() {
        var rng = SeededGenerator(seed: 0x5E4D_0001)
        for _ in 0..<500 {
            var model = SendModel()
            if Bool.random(using: &rng) { _ = model.opened() }
            for _ in 0..<Int.random(in: 1...60, using: &rng) {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0...4: model.send(flush: Bool.random(using: &rng), size: Int.random(in: 0...25, using: &rng))
                case 5: model.cancelNewest()
                case 6: if model.drainAsked { _ = model.drain() }
                case 7: if model.hasUnsettledWrite { model.settleOldestWrite(failed: false) }
                case 8: if model.machine.phase == .connecting { _ = model.opened() }
                default: if Int.random(in: 0..<4, using: &rng) == 0 { model.stopAccepting() }
                }
                let problems = model.problems(ended: false)
                guard problems.isEmpty else {
                    Issue.record(Comment(rawValue: problems.joined(separator: "; ")))
                    return
                }
            }
            if model.machine.phase == .open, Bool.random(using: &rng) {
                _ = model.closingStarted(.handshake)
            }
            model.ended()
            let problems = model.problems(ended: true)
            guard problems.isEmpty else {
                Issue.record(Comment(rawValue: problems.joined(separator: "; ")))
                return
            }
        }
    }
}

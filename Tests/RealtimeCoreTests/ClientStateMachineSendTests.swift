import Foundation
import RealtimeCore
import RealtimeTestSupport
import Testing

/// The outbox's decisions (``SendPolicy``), step by step through the state machine: what a
/// send does in each state, the order queued messages go out in, refusals, bounds, expiry,
/// cancellation and the end of the client.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineSendTests {
    typealias Outcome = HarnessOutbox.Outcome

    static func harness(_ policy: SendPolicy, _ change: (inout ClientStateMachine.Configuration) -> Void = { _ in }) -> ClientStateMachineHarness {
        var c = ClientStateMachine.Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false, sendPolicy: policy)
        change(&c)
        return ClientStateMachineHarness(c)
    }

    @Test func failFastThrowsNotConnectedUnlessAnAttemptIsStarted() {
        var h = Self.harness(.failFast)
        let before = h.send("before start")
        h.start()
        let preparing = h.send("while preparing")
        h.make()
        let started = h.send("handshake in progress")
        h.open()
        let open = h.send("open")
        h.acceptLive(); h.acceptLive()
        h.fail(RealtimeError(.network))
        let between = h.send("between connections")
        #expect(h.outbox.outcome(before) == .failed(.notConnected))
        #expect(h.outbox.outcome(preparing) == .failed(.notConnected))
        #expect(h.outbox.outcome(started) == .sent(attempt: 1), "a started WebSocket waits for its handshake")
        #expect(h.outbox.outcome(open) == .sent(attempt: 1))
        #expect(h.outbox.outcome(between) == .failed(.notConnected))
        #expect(h.outbox.expiry == nil && !h.outbox.drainRunning)
        h.close()
        let afterClose = h.send("after close")
        #expect(h.outbox.outcome(afterClose) == .failed(.cancelled))
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func sseCannotSend() {
        var h = Self.harness(.queue()) { $0.canSend = false }
        h.start(); h.make(); h.open()
        let x = h.send("x")
        #expect(h.outbox.outcome(x) == .failed(.sendNotSupported))
    }

    @Test func queuedMessagesGoOutInOrderRightAfterTheOpenBeforeLaterSends() {
        var h = Self.harness(.queue())
        let a = h.send("a")
        h.start(); h.make()
        h.send("b")
        #expect(h.outbox.outcome(a) == nil && h.outbox.accepted.isEmpty, "queued, not failed")
        #expect(h.outbox.expiry == .seconds(30), "the default timeout")
        h.open()
        #expect(h.outbox.drainRunning, "the open starts the drain")
        h.drainNext()
        h.send("c")  // sent while the queue is going out: behind it
        #expect(h.outbox.live.isEmpty)
        h.settleDrain()
        h.drainAll()
        #expect(!h.outbox.drainRunning && h.outbox.expiry == nil)
        let d = h.send("d")  // the queue is empty: straight to the connection
        #expect(h.outbox.live.count == 1)
        h.acceptLive()
        #expect(h.outbox.acceptedTexts == ["a", "b", "c", "d"])
        #expect(h.outbox.outcome(a) == .sent(attempt: 1) && h.outbox.outcome(d) == .sent(attempt: 1))
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func aMessageTheConnectionRefusedGoesOutOnceOnTheNextConnection() {
        var h = Self.harness(.queue())
        h.send("a"); h.send("b")
        h.start(); h.make(); h.open()
        h.drainNext()
        h.settleDrain(refuse: true)  // the connection is going away: a was never sent
        h.drainNext()
        #expect(!h.outbox.drainRunning, "nothing more is handed to a connection that refused")
        let c = h.send("c")
        #expect(h.outbox.live.isEmpty, "c queues behind the refused messages")
        h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.open()
        h.drainAll()
        #expect(h.outbox.accepted.map(\.text) == ["a", "b", "c"])
        #expect(h.outbox.accepted.allSatisfy { $0.attempt == 2 })
        #expect(h.outbox.outcome(c) == .sent(attempt: 2))
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func aLiveSendRefusedByAClosingConnectionGoesFirstOnTheNext() {
        var h = Self.harness(.queue())
        h.start(); h.make(); h.open()
        let a = h.send("a")
        #expect(h.outbox.live.count == 1)
        h.fail(RealtimeError(.network))  // the transport refuses a as it ends
        h.send("b")
        h.fireTimer(); h.make(); h.open()
        h.drainAll()
        #expect(h.outbox.acceptedTexts == ["a", "b"])
        #expect(h.outbox.outcome(a) == .sent(attempt: 2))
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func theBoundsFailASendAtOnce() {
        var h = Self.harness(.queue(maxMessages: 2, maxBytes: 10))
        let a = h.send("12345"), b = h.send("12345"), c = h.send("1")
        #expect(h.outbox.outcome(a) == nil && h.outbox.outcome(b) == nil)
        #expect(h.outbox.outcome(c) == .failed(.sendQueueFull), "two messages at most")
        var bytes = Self.harness(.queue(maxMessages: 10, maxBytes: 10))
        bytes.send("123456")
        let over = bytes.send("12345"), fits = bytes.send("1234"), huge = bytes.send("12345678901")
        #expect(bytes.outbox.outcome(over) == .failed(.sendQueueFull), "ten bytes at most")
        #expect(bytes.outbox.outcome(fits) == nil)
        #expect(bytes.outbox.outcome(huge) == .failed(.sendQueueFull), "larger than the outbox")
    }

    @Test func aQueuedMessageExpiresAfterTheTimeout() {
        var h = Self.harness(.queue(timeout: .seconds(5)))
        let a = h.send("a")
        h.now = .seconds(2)
        let b = h.send("b")
        #expect(h.outbox.expiry == .seconds(5))
        h.fireSendExpiry()
        #expect(h.outbox.outcome(a) == .failed(.sendExpired))
        #expect(h.outbox.outcome(b) == nil && h.outbox.expiry == .seconds(7))
        h.start(); h.make(); h.open(); h.drainAll()
        #expect(h.outbox.acceptedTexts == ["b"], "an expired message is never sent")
        #expect(h.outbox.expiry == nil)
        var forever = Self.harness(.queue(timeout: nil))
        forever.send("x")
        #expect(forever.outbox.expiry == nil, "no timeout: no timer")
    }

    @Test func aCancelledSenderLeavesTheQueue() {
        var h = Self.harness(.queue(timeout: .seconds(5)))
        let a = h.send("a")
        h.send("b")
        h.cancelSend(a)
        #expect(h.outbox.outcome(a) == .failed(.cancelled))
        h.start(); h.make(); h.open(); h.drainAll()
        #expect(h.outbox.acceptedTexts == ["b"])
    }

    @Test func closeFailsTheQueueWithCancelledAndTheInFlightMessageSettles() {
        var h = Self.harness(.queue())
        h.send("a"); h.send("b")
        h.start(); h.make(); h.open()
        h.drainNext()  // a in flight
        h.close()
        #expect(h.outbox.outcome(1) == .failed(.cancelled))
        #expect(h.outbox.expiry == nil)
        h.settleDrain(refuse: true)
        #expect(h.outbox.outcome(0) == .failed(.cancelled), "refused after the close: not requeued")
        h.drainNext()
        #expect(!h.outbox.drainRunning)
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func whenThePolicyStopsTheQueueFailsWithItsReason() {
        var h = Self.harness(.queue()) { $0.reconnect = .never }
        let a = h.send("a")
        h.start(); h.make()
        h.fail(.httpStatus(404))
        #expect(h.outbox.outcome(a) == .failed(.httpStatus))
        let later = h.send("later")
        #expect(h.outbox.outcome(later) == .failed(.httpStatus))
    }
}

import Foundation
import RealtimeCore
import RealtimeTestSupport
import Testing

/// The on-open hook's handshake, step by step through the state machine: the connection is
/// ready (its `open` emitted, the outbox going out) only when the hook returns; messages of
/// the handshake are held and follow the `open`; a failure ends the attempt with the hook's
/// error (retried with backoff) and no `open`; the client's own reasons and stale reports win.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineOpenHookTests {
    static func harness(timeout: Duration? = .seconds(10), sendPolicy: SendPolicy = .queue()) -> ClientStateMachineHarness {
        ClientStateMachineHarness(ClientStateMachine.Configuration(
            backoff: .exponential(jitter: .none), waitsForConsumer: false, sendPolicy: sendPolicy, openHookTimeout: timeout))
    }

    @Test func theOutboxWaitsForTheHookOnEveryOpen() {
        var h = Self.harness()
        _ = h.send("queued")
        h.start(); h.make(); h.open()
        #expect(h.openHooks.map(\.attempt) == [1])
        #expect(h.openHooks.first?.deadline == h.now + .seconds(10))
        #expect(!h.outbox.drainRunning, "nothing queued goes out while the hook runs")
        h.send("during the hook")
        #expect(h.outbox.live.isEmpty, "a send while the hook runs queues behind it")
        h.finishHook()
        #expect(h.outbox.drainRunning, "the hook's end starts the drain")
        h.drainAll()
        #expect(h.outbox.accepted.map(\.text) == ["queued", "during the hook"])
        h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.open()
        #expect(h.openHooks.map(\.attempt) == [1, 2], "every reconnect runs it again")
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func theConnectionIsReadyOnlyWhenTheHookReturns() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        #expect(h.summary == "", "no open while the handshake runs")
        #expect(h.snapshot == .connecting(attempt: 1))
        #expect(!h.machine.isConnected && h.machine.currentStatistics.connections == 0)
        h.now += .seconds(3)
        h.finishHook()
        #expect(h.summary == "open(1)")
        #expect(h.machine.isConnected && h.machine.statistics.connections == 1)
        guard case .open = h.snapshot else { Issue.record("not open: \(h.snapshot)"); return }
    }

    @Test func messagesOfTheHandshakeFollowTheOpenInOrder() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.messages(["a", "b"])
        h.messages(["c"])
        #expect(h.summary == "" && h.held == ["a", "b", "c"], "held while the hook runs")
        #expect(h.machine.statistics.messages == 3, "counted as received")
        h.finishHook()
        h.messages(["d"])
        #expect(h.summary == "open(1) event(a) event(b) event(c) event(d)")
    }

    @Test func aFailFastSendDuringTheHandshakeIsRefused() {
        var h = Self.harness(sendPolicy: .failFast)
        h.start(); h.make()
        #expect(h.machine.acceptsSends, "a started transport takes sends (it waits for its own handshake)")
        h.open()
        #expect(!h.machine.acceptsSends, "not while the application's handshake runs")
        h.finishHook()
        #expect(h.machine.acceptsSends)
    }

    @Test func theHookIsToldTheCursorItsRequestCarried() {
        var h = ClientStateMachineHarness(ClientStateMachine.Configuration(
            backoff: .exponential(jitter: .none), waitsForConsumer: false, cursor: "7", openHookTimeout: .seconds(1)))
        h.start(); h.make(); h.open()
        #expect(h.openHooks.map(\.cursor) == ["7"])
    }

    @Test func aFailureClosesTheConnectionAndTheAttemptEndsWithIt() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.messages(["dropped with the connection"])
        h.finishHook(RealtimeError(.openHookFailed, detail: "the on-open hook threw X"))
        #expect(h.transport == .closing)
        h.messages(["late"])
        h.end()  // the close the client asked for: `cancelled`, replaced by the hook's error
        #expect(h.summary == "error(open_hook_failed,retry)", "no open, so no closed either")
        #expect(h.events.compactMap(\.errorEvent).first?.retryIn == .seconds(1))
        #expect(h.machine.statistics.errorsByClass[.openHook] == 1)
        #expect(h.machine.statistics.connections == 0)
        #expect(h.timer != nil, "retried after the backoff")
    }

    @Test func aTerminatorDuringTheHandshakeFailsIt() {
        var h = ClientStateMachineHarness(ClientStateMachine.Configuration(
            backoff: .exponential(jitter: .none), waitsForConsumer: false, hasTerminator: true, openHookTimeout: .seconds(1)))
        h.start(); h.make(); h.open()
        h.terminator()
        #expect(h.transport == .closing)
        h.end()
        #expect(h.summary == "error(open_hook_failed,retry)")
    }

    @Test func theClientsOwnReasonsAndStaleReportsWin() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.suspend()
        h.end()
        #expect(h.summary == "", "a suspension is not a failure, and the connection never opened")
        #expect(h.workCancelled, "the hook still running is cancelled when its attempt ends")
        h.finishHook(RealtimeError(.openHookFailed), attempt: 1)
        #expect(h.ignored == [.staleAttempt], "a report for an attempt that is over is ignored")
        #expect(h.summary == "")
    }

    @Test func aHookEndingAfterASuspensionDoesNotCount() {
        for error in [RealtimeError(.openHookFailed), nil] {
            var h = Self.harness()
            h.start(); h.make(); h.open()
            h.suspend()
            h.finishHook(error)
            h.end()
            #expect(h.summary == "", "the suspension came first")
            #expect(h.machine.statistics.errorsByClass.isEmpty && h.machine.statistics.connections == 0)
        }
    }

    @Test func withoutAHookTheOutboxGoesOutAtTheOpen() {
        var h = Self.harness(timeout: nil)
        h.send("queued")
        h.start(); h.make(); h.open()
        #expect(h.openHooks.isEmpty && h.outbox.drainRunning)
        #expect(h.summary == "open(1)")
    }
}

import Foundation
import RealtimeCore
import RealtimeTestSupport
import Testing

/// The on-open hook's decisions, step by step through the state machine: the outbox waits for
/// it, a failure ends the attempt with the hook's error (retried with backoff), and the
/// client's own reasons and stale reports win.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineOpenHookTests {
    static func harness(timeout: Duration? = .seconds(10)) -> ClientStateMachineHarness {
        ClientStateMachineHarness(ClientStateMachine.Configuration(
            backoff: .exponential(jitter: .none), waitsForConsumer: false, sendPolicy: .queue(), openHookTimeout: timeout))
    }

    @Test func theOutboxWaitsForTheHookOnEveryOpen() {
        var h = Self.harness()
        h.send("queued")
        h.start(); h.make(); h.open()
        #expect(h.openHooks.map(\.attempt) == [1])
        #expect(h.openHooks.first?.deadline == h.now + .seconds(10))
        #expect(!h.outbox.drainRunning, "nothing queued goes out while the hook runs")
        h.send("during the hook")
        #expect(h.outbox.live.isEmpty, "a send while the hook runs queues behind it")
        let finished = h.machine.openHookFinished(attempt: 1, error: nil, now: h.now)
        h.apply(finished)
        #expect(h.outbox.drainRunning, "the hook's end starts the drain")
        h.drainAll()
        #expect(h.outbox.accepted.map(\.text) == ["queued", "during the hook"])
        h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.open()
        #expect(h.openHooks.map(\.attempt) == [1, 2], "every reconnect runs it again")
        #expect(h.outbox.problems.isEmpty, "\(h.outbox.problems)")
    }

    @Test func aFailureClosesTheConnectionAndTheAttemptEndsWithIt() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        let failure = RealtimeError(.openHookFailed, detail: "the on-open hook threw X")
        let finished = h.machine.openHookFinished(attempt: 1, error: failure, now: h.now)
        h.apply(finished)
        #expect(h.transport == .closing)
        h.end()  // the close the client asked for: `cancelled`, replaced by the hook's error
        #expect(h.summary == "open(1) error(open_hook_failed,retry) closed(reconnect)")
        #expect(h.events.compactMap(\.errorEvent).first?.retryIn == .seconds(1))
        #expect(h.machine.statistics.errorsByClass[.openHook] == 1)
        #expect(h.timer != nil, "retried after the backoff")
    }

    @Test func theClientsOwnReasonsAndStaleReportsWin() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.suspend()
        h.end()
        #expect(h.summary == "open(1) closed(reconnect)", "a suspension is not a failure")
        #expect(h.workCancelled, "the hook still running is cancelled when its attempt ends")
        let stale = h.machine.openHookFinished(attempt: 1, error: RealtimeError(.openHookFailed), now: h.now)
        #expect(stale.ignored == .staleAttempt, "a report for an attempt that is over is ignored")
        #expect(h.summary == "open(1) closed(reconnect)")
    }

    @Test func aFailureReportedAfterASuspensionIsNotAFailure() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.suspend()
        let finished = h.machine.openHookFinished(attempt: 1, error: RealtimeError(.openHookFailed), now: h.now)
        h.apply(finished)
        h.end()
        #expect(h.summary == "open(1) closed(reconnect)", "the suspension came first")
        #expect(h.machine.statistics.errorsByClass.isEmpty)
    }

    @Test func withoutAHookTheOutboxGoesOutAtTheOpen() {
        var h = Self.harness(timeout: nil)
        h.send("queued")
        h.start(); h.make(); h.open()
        #expect(h.openHooks.isEmpty && h.outbox.drainRunning)
    }
}

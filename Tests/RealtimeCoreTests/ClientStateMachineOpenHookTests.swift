import Foundation
@_spi(Transport) import RealtimeCore
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

/// The application failing a connection (`OpenContext.fail`): the connection closes with the
/// application's code and the attempt ends with its error, judged by the policy; a stale or
/// second report changes nothing; the code the client sent is not the server's verdict.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineConnectionFailureTests {
    static func harness(finalCloseCodes: Set<UInt16> = [], hook: Bool = false) -> ClientStateMachineHarness {
        var reconnect = ReconnectPolicy.default
        reconnect.finalCloseCodes = finalCloseCodes
        return ClientStateMachineHarness(ClientStateMachine.Configuration(
            backoff: .exponential(jitter: .none), reconnect: reconnect, waitsForConsumer: false,
            openHookTimeout: hook ? .seconds(10) : nil))
    }

    @Test func aFailedConnectionClosesWithTheCodeAndEndsWithTheError() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        let violation = RealtimeError(.protocolViolation, detail: "an id the server had completed")
        h.apply(h.machine.connectionFailed(attempt: 1, error: violation, closeCode: 4400))
        #expect(h.transport == .closing && h.lastTransportCommand == .closeWith(code: 4400))
        h.apply(h.machine.connectionFailed(attempt: 1, error: RealtimeError(.network), closeCode: 1002))
        #expect(h.lastTransportCommand == .closeWith(code: 4400), "a second failure changes nothing")
        h.end(TransportEnd(clean: true, code: 4400))  // the server echoes the code
        #expect(h.summary == "open(1) error(protocol_violation,retry) closed(reconnect)")
        #expect(h.timer != nil)
    }

    @Test func theCodeTheClientSentIsNotAFinalCloseCode() {
        var h = Self.harness(finalCloseCodes: [4400])
        h.start(); h.make(); h.open()
        h.apply(h.machine.connectionFailed(attempt: 1, error: RealtimeError(.protocolViolation), closeCode: 4400))
        h.end(TransportEnd(clean: true, code: 4400))
        #expect(h.summary == "open(1) error(protocol_violation,retry) closed(reconnect)")
    }

    @Test func aFinalCloseCodeFromTheServerStops() {
        var h = Self.harness(finalCloseCodes: [4403])
        h.start(); h.make(); h.open()
        h.end(TransportEnd(clean: false, code: 4403, reason: "Forbidden", error: RealtimeError(.remoteClosed, closeCode: 4403)))
        #expect(h.summary == "open(1) error(remote_closed,stop) closed(final)")
        #expect(h.events.compactMap(\.errorEvent).first?.error.closeCode == 4403)
    }

    @Test func aFailureDuringTheHandshakeFailsItAndTheHooksLateReportIsHarmless() {
        var h = Self.harness(hook: true)
        h.start(); h.make(); h.open()
        h.apply(h.machine.connectionFailed(attempt: 1, error: RealtimeError(.protocolViolation), closeCode: 1002))
        h.finishHook()  // the hook returns afterwards
        h.end()
        #expect(h.summary == "error(protocol_violation,retry)")
    }

    @Test func aStaleFailureIsIgnored() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.fail(RealtimeError(.network))
        h.drain(); h.fireTimer(); h.make(); h.open()
        let stale = h.machine.connectionFailed(attempt: 1, error: RealtimeError(.protocolViolation), closeCode: 1002)
        #expect(stale.ignored == .staleAttempt && h.transport == .opened)
    }
}

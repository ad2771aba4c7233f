import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// Events that arrive after the world moved on are ignored, each with its reason, and change
/// nothing; events that cannot happen are precondition failures (driver bugs).
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineStaleEventTests {
    static func configuration(_ change: (inout ClientStateMachine.Configuration) -> Void = { _ in }) -> ClientStateMachine.Configuration {
        var c = ClientStateMachine.Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false)
        change(&c)
        return c
    }

    static let info = ConnectionInfo(transport: .sse, url: URL(string: "http://example.test/s")!, status: 200)

    /// Attempt 1 failed, attempt 2 is open.
    static func onSecondAttempt() -> ClientStateMachineHarness {
        var h = ClientStateMachineHarness(configuration())
        h.start(); h.make(); h.open()
        h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.open()
        return h
    }

    @Test func theTransportOfASupersededAttemptIsIgnored() {
        var h = Self.onSecondAttempt()
        let before = (h.summary, h.snapshot, h.machine.statistics)
        #expect(h.machine.transportEnded(attempt: 1, end: TransportEnd(clean: true), now: h.now).ignored == .staleAttempt)
        #expect(h.machine.transportOpened(attempt: 1, info: Self.info, now: h.now).ignored == .staleAttempt)
        #expect(h.machine.terminatorArrived(attempt: 1, now: h.now).ignored == .staleAttempt)
        #expect(h.machine.messagesArrived(attempt: 1, count: 1, bytes: 1) == .drop)
        #expect(h.summary == before.0 && h.snapshot == before.1 && h.machine.statistics == before.2)
        // The live attempt still ends normally.
        h.fail(RealtimeError(.network))
        #expect(h.summary.hasSuffix("error(network,retry) closed(reconnect)"))
    }

    @Test func aSecondEndOfTheSameAttemptIsIgnored() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.fail(RealtimeError(.network))
        let summary = h.summary
        let again = h.machine.transportEnded(attempt: 1, end: TransportEnd(clean: false, error: RealtimeError(.network)), now: h.now)
        #expect(again.ignored == .staleAttempt)
        #expect(again.emissions.isEmpty && again.logs.isEmpty && again.startTimer == nil)
        #expect(h.summary == summary && h.timer != nil)
    }

    @Test func aWithdrawnTimerIsIgnored() throws {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.fail(RealtimeError(.network))
        let token = try #require(h.timer?.token)
        h.restart()  // cuts the wait short: the timer is disarmed, attempt 2 starts
        #expect(h.timer == nil && h.plans.count == 2)
        #expect(h.machine.timerFired(token, now: h.now + .seconds(1)).ignored == .staleTimer)
        #expect(h.snapshot == .connecting(attempt: 2))
    }

    @Test func aReplacedTimerIsIgnoredWhileWaiting() throws {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make(); h.open()
        h.fail(RealtimeError(.network))
        let first = try #require(h.timer?.token)
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        let second = try #require(h.timer?.token)
        #expect(first != second)
        #expect(h.machine.timerFired(first, now: h.now).ignored == .staleTimer)
        #expect(h.timer?.token == second && h.plans.count == 2, "the armed timer stays armed")
    }

    /// A retry-budget request withdrawn by a suspension: its late answer books nothing.
    @Test func aWithdrawnBudgetAnswerIsIgnored() {
        var h = ClientStateMachineHarness(Self.configuration { $0.sharesRetryBudget = true })
        h.start(); h.make(); h.open()
        h.suspend(); h.end()
        h.resume()
        #expect(h.pendingReserve == .zero, "the reconnect books a slot")
        h.suspend()
        let answer = h.machine.retrySlotReserved(.seconds(3), now: h.now)
        #expect(answer.ignored == .staleBudgetAnswer)
        #expect(h.machine.attemptAdmitted(wait: .zero, lateness: .zero, now: h.now).ignored == .staleBudgetAnswer)
        #expect(h.snapshot == .suspended)
        h.pendingReserve = nil
        h.resume()
        #expect(h.pendingReserve == .zero, "the wait books again")
    }

    @Test func anOvertakenConsumerReportIsIgnored() {
        var h = ClientStateMachineHarness(Self.configuration { $0.waitsForConsumer = true })
        h.start(); h.make(); h.open()
        h.messages(["1", "2"])
        let early = h.ledger.progress
        h.drain()
        let latest = h.ledger.progress
        #expect(h.machine.consumerProcessed(latest, now: h.now).ignored == nil)
        #expect(h.machine.consumerProcessed(early, now: h.now).ignored == .staleProgress)
        #expect(h.machine.consumerProcessed(latest, now: h.now).ignored == .staleProgress, "nothing new")
        #expect(h.machine.consumer == latest)
    }

    /// An open, a made transport, a cursor load or a timer after `close()`.
    @Test func eventsAfterTheCloseAreIgnored() {
        var h = ClientStateMachineHarness(Self.configuration())
        h.start(); h.make()
        h.close()
        #expect(h.machine.transportOpened(attempt: 1, info: Self.info, now: h.now).ignored == .clientDone)
        #expect(h.machine.transportEnded(attempt: 1, end: TransportEnd(clean: true), now: h.now).ignored == .clientDone)
        #expect(h.summary == "")

        var preparing = ClientStateMachineHarness(Self.configuration())
        preparing.start()
        preparing.close()
        guard case .discard(let effects) = preparing.machine.transportMade(attempt: 1, now: preparing.now) else {
            Issue.record("a transport made after the close was started")
            return
        }
        #expect(effects.ignored == .clientDone)
        #expect(preparing.machine.attemptFailedToStart(attempt: 1, error: RealtimeError(.network), now: .zero).ignored == .clientDone)

        var loading = ClientStateMachineHarness(Self.configuration { $0.loadsCursor = true })
        loading.start()
        loading.close()
        #expect(loading.machine.cursorLoaded("7", now: .zero).ignored == .clientDone)
        #expect(loading.machine.start(network: nil, now: .zero).ignored == .clientDone)
    }

    @Test func eventsAfterTheEndOfAReplyAreIgnored() {
        var h = ClientStateMachineHarness(Self.configuration { $0.hasTerminator = true })
        h.start(); h.make(); h.open()
        h.terminator()
        #expect(h.finished)
        #expect(h.machine.transportEnded(attempt: 1, end: TransportEnd(clean: false, error: .cancelled), now: h.now).ignored == .clientDone)
    }

    /// A transport that breaks its contract (a second open, a terminator before the open).
    @Test func outOfOrderTransportEventsAreIgnored() {
        var h = ClientStateMachineHarness(Self.configuration { $0.hasTerminator = true })
        h.start(); h.make()
        #expect(h.machine.terminatorArrived(attempt: 1, now: h.now).ignored == .outOfOrder)
        h.open()
        #expect(h.machine.transportOpened(attempt: 1, info: Self.info, now: h.now).ignored == .outOfOrder)
        #expect(h.summary == "open(1)" && h.machine.statistics.connections == 1)
    }

    @Test func aTimerNeverArmedIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var m = ClientStateMachine(configuration: .init(), random: SeededGenerator(seed: 1))
            _ = m.timerFired(7, now: .zero)
        }
    }

    @Test func aTransportForAnAttemptNotBeingPreparedIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            var m = ClientStateMachine(configuration: .init(), random: SeededGenerator(seed: 1))
            _ = m.start(network: nil, now: .zero)
            _ = m.transportMade(attempt: 2, now: .zero)
        }
    }
}

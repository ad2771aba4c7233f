import Foundation
@_spi(Transport) import RealtimeCore
import RealtimeTestSupport
import Testing

/// The server's `retry:` through the client's state machine: the delays it reports, the
/// reconnection time it exposes, the breaker and the attempt limit still in force; and a
/// caller's restart.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineServerHintTests {
    typealias Configuration = ClientStateMachine.Configuration

    static func seconds(_ d: Duration?) -> Double {
        guard let d else { return -1 }
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func retry2500GivesTheHintPlusAQuarterThenGrowsThenResets(seed: UInt64) {
        var h = ClientStateMachineHarness(Configuration(waitsForConsumer: false), seed: seed)
        #expect(h.machine.reconnectionTime == .seconds(1), "the policy's first delay until a hint")
        h.start(); h.make(); h.open()
        h.hint(.milliseconds(2500))
        #expect(h.machine.reconnectionTime == .milliseconds(2500))
        h.fail(RealtimeError(.network))
        let first = Self.seconds(h.events.compactMap(\.errorEvent).last?.retryIn)
        #expect(first >= 2.5 && first <= 3.125, "\(first)")
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        let second = Self.seconds(h.events.compactMap(\.errorEvent).last?.retryIn)
        #expect(second >= 5 && second <= 6.25, "consecutive failures grow: \(second)")
        h.fireTimer(); h.make(); h.open()
        h.now += .seconds(10)  // a stable connection
        h.fail(RealtimeError(.network))
        let reset = Self.seconds(h.events.compactMap(\.errorEvent).last?.retryIn)
        #expect(reset >= 2.5 && reset <= 3.125, "success resets: \(reset)")
    }

    @Test func theBreakerAndTheAttemptLimitStillApply() {
        var c = Configuration(waitsForConsumer: false)
        c.reconnect = ReconnectPolicy(maxAttempts: 3, circuitBreaker: CircuitBreaker(failureThreshold: 2, coolDown: .seconds(60)))
        var h = ClientStateMachineHarness(c)
        h.start(); h.make(); h.open()
        h.hint(.milliseconds(2500))
        h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        #expect(h.events.last?.errorEvent?.error.code == .circuitOpen)
        #expect(h.events.compactMap(\.errorEvent).last?.retryIn == .seconds(60))
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        #expect(h.events.last?.errorEvent?.error.code == .retriesExhausted)
    }

    // MARK: Restart

    @Test func restartClosesCleanlyAndConnectsAtOnceWithTheCursor() {
        var h = ClientStateMachineHarness(Configuration(backoff: .exponential(jitter: .none)))
        h.start(); h.make(); h.open(); h.messages(["1", "2"])
        h.drain()
        h.apply(h.machine.restart(now: h.now))
        #expect(h.transport == .closing)
        h.end()
        #expect(h.summary == "open(1) event(1) event(2) closed(reconnect)")
        h.drain()
        #expect(h.timer == nil, "no backoff")
        #expect(h.plans.last == .init(attempt: 2, cursor: "2", credentialsRejected: false))
        #expect(h.machine.statistics.errorsByClass.isEmpty)
        #expect(h.machine.statistics.restarts == 1)
    }

    @Test func restartDuringBackoffConnectsNowAndStartsTheDelaysOver() {
        var h = ClientStateMachineHarness(Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false))
        h.start(); h.make(); h.fail(RealtimeError(.network))
        h.fireTimer(); h.make(); h.fail(RealtimeError(.network))
        #expect(h.events.compactMap(\.errorEvent).last?.retryIn == .seconds(2))
        h.apply(h.machine.restart(now: h.now))
        #expect(h.timer == nil)
        #expect(h.plans.count == 3, "connected at once")
        h.make(); h.fail(RealtimeError(.network))
        #expect(h.events.compactMap(\.errorEvent).last?.retryIn == .seconds(1), "the streak starts over")
    }

    @Test func restartIsANoOpWhenSuspendedOrDone() {
        var h = ClientStateMachineHarness(Configuration(backoff: .exponential(jitter: .none), waitsForConsumer: false))
        h.start(); h.make(); h.open(); h.suspend(); h.end()
        #expect(h.machine.restart(now: h.now).isEmpty)
        h.resume(); h.make(); h.end(TransportEnd(clean: true, doNotReconnect: true))
        #expect(h.finished)
        #expect(h.machine.restart(now: h.now).isEmpty)
    }
}

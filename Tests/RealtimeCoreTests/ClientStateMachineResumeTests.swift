import Foundation
import RealtimeCore
import RealtimeTestSupport
import Testing

/// A resume plan through the state machine: a request that must not be repeated (a POST) is
/// resumed by the plan's request once a cursor exists and never repeated without one; a
/// finite stream cut (or ended cleanly) before its terminator resumes instead of ending
/// `truncated`; resumes that bring nothing new stop after the plan's limit.
@Suite(.timeLimit(.minutes(1))) struct ClientStateMachineResumeTests {
    /// An LLM-style reply: POST (not repeatable), finite, with a terminator and a resume plan.
    static func harness(maxResumesWithoutProgress: Int = 3, terminator: Bool = true) -> ClientStateMachineHarness {
        ClientStateMachineHarness(ClientStateMachine.Configuration(
            backoff: .exponential(jitter: .none), reconnect: .finite, requestIsRepeatable: false,
            hasTerminator: terminator, resumes: true, maxResumesWithoutProgress: maxResumesWithoutProgress))
    }

    @Test func aCutAfterTheFirstCursorResumesWithThePlansRequest() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        #expect(h.plans.last?.resumes == false, "the first attempt sends the first request")
        h.messages(["r 1", "r 2"])
        h.drain()
        h.fail(RealtimeError(.network))
        #expect(h.summary == "open(1) event(r 1) event(r 2) error(network,retry) closed(reconnect)")
        h.drain(); h.fireTimer()
        #expect(h.plans.last == ClientStateMachine.ConnectPlan(attempt: 2, cursor: "r 2", credentialsRejected: false, resumes: true))
    }

    @Test func aCutBeforeAnyCursorNeverRepeatsTheRequest() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.messages([nil])
        h.drain()
        h.fail(RealtimeError(.network))
        #expect(h.summary == "open(1) event(-) error(request_not_repeatable,stop) closed(final)")
        #expect(h.plans.count == 1 && h.finished)
    }

    @Test func aCleanEndBeforeTheTerminatorIsACutThatResumes() {
        var h = Self.harness()
        h.start(); h.make(); h.open()
        h.messages(["r 1"])
        h.drain()
        h.endCleanly()
        #expect(h.summary == "open(1) event(r 1) error(truncated,retry) closed(reconnect)")
        h.drain(); h.fireTimer(); h.make(); h.open()
        h.messages(["r 2"])
        h.terminator()
        #expect(h.summary.hasSuffix("open(2) event(r 2) closed(final)"))
        #expect(h.plans.map(\.resumes) == [false, true])
    }

    @Test func withoutATerminatorACleanEndIsTheEnd() {
        var h = Self.harness(terminator: false)
        h.start(); h.make(); h.open()
        h.messages(["r 1"])
        h.drain()
        h.endCleanly()
        #expect(h.summary == "open(1) event(r 1) closed(final)" && h.finished)
    }

    @Test func resumesWithoutProgressStopAtThePlansLimit() {
        var h = Self.harness(maxResumesWithoutProgress: 2)
        h.start(); h.make(); h.open()
        h.messages(["r 1"])
        h.drain()
        h.endCleanly()
        h.drain(); h.fireTimer(); h.make(); h.open()
        h.endCleanly()  // the reply is still queued: nothing after r 1
        #expect(h.summary.hasSuffix("open(2) error(truncated,retry) closed(reconnect)"))
        h.drain(); h.fireTimer(); h.make(); h.open()
        h.endCleanly()
        let last = h.events.compactMap(\.errorEvent).last
        #expect(last?.willRetry == false)
        #expect(last?.error.code == .truncated && last?.error.detail?.contains("2 times in a row") == true)
        #expect(h.finished && h.plans.count == 3)
    }

    @Test func progressResetsTheCountOfStalledResumes() {
        var h = Self.harness(maxResumesWithoutProgress: 2)
        h.start(); h.make(); h.open()
        h.messages(["r 1"]); h.drain(); h.endCleanly()
        h.drain(); h.fireTimer(); h.make(); h.open()
        h.endCleanly()  // stalled once
        h.drain(); h.fireTimer(); h.make(); h.open()
        h.messages(["r 2"]); h.drain(); h.endCleanly()  // progress
        h.drain(); h.fireTimer(); h.make(); h.open()
        h.endCleanly()  // stalled once again: not yet the limit
        #expect(!h.finished && h.plans.count == 4)
        #expect(h.plans.last?.cursor == "r 2")
    }

    @Test func aStoredCursorResumesFromTheFirstAttempt() {
        var h = ClientStateMachineHarness(ClientStateMachine.Configuration(
            reconnect: .finite, requestIsRepeatable: false, cursor: "r 9", hasTerminator: true, resumes: true))
        h.start()
        #expect(h.plans.first?.resumes == true && h.plans.first?.cursor == "r 9", "a restart resumes; the POST is not sent again")
    }
}

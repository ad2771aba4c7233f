import Foundation
@_spi(Transport) import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing
@_spi(Transport) import RealtimeCore
@_spi(Transport) import RealtimeIO
@_spi(Transport) import RealtimeSSE
@_spi(Transport) import RealtimeWebSocket

/// `state` and `stateChanges` say what the client is doing; attempts are counted over its
/// life and per outage.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientStateTests {
    /// Records every state an iterator of `stateChanges` sees.
    final class StateLog: Sendable {
        let states = Observed<[RealtimeClient.State]>([])
        let ended = Observed(false)
        init(_ client: RealtimeClient) {
            Task { [states, ended] in
                for await state in client.stateChanges { states.update { $0.append(state) } }
                ended.update { $0 = true }
            }
        }

        func waitFor(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @escaping @Sendable (RealtimeClient.State) -> Bool) async {
            await states.wait(what, sourceLocation: sourceLocation) { $0.last.map(condition) ?? false }
        }
    }

    @Test func statesFollowTheConnection() async throws {
        let t = try TestClient()
        let log = StateLog(t.client)
        await log.waitFor("idle") { $0 == .idle }
        #expect(t.client.state == .idle, "nothing happens before the events are iterated")
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        await log.waitFor("connecting") { $0 == .connecting(attempt: 1) }
        first.open()
        await log.waitFor("open") { if case .open(let info) = $0 { info.attempt == 1 } else { false } }
        first.fail(RealtimeError(.network))
        await log.waitFor("waiting to retry") { $0.isWaitingToRetry }
        #expect(t.client.state == .waitingToRetry(in: .seconds(1)), "the 1 s backoff, on the manual clock")
        await t.advance(by: .seconds(1))
        _ = try #require(await t.factory.transport(1))
        await log.waitFor("connecting again") { $0 == .connecting(attempt: 2) }
        t.client.suspend()
        #expect(t.client.state == .suspended)
        await log.waitFor("suspended") { $0 == .suspended }
        t.client.close()
        await log.waitFor("closed") { $0 == .closed(.cancelled) }
        await log.ended.wait("the state changes to end after closed") { $0 }
        _ = rec
    }

    /// The time left before a retry is measured on the client's clock: with a manual clock it
    /// moves only when the test moves that clock, whatever the wall clock does.
    @Test func theRetryDelayIsMeasuredOnTheInjectedClock() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(RealtimeError(.network))
        await t.waitForState("waiting to retry") { $0.isWaitingToRetry }
        #expect(t.client.state == .waitingToRetry(in: .seconds(1)))
        #expect(t.client.state.description == "waiting to retry in 1 s")
        await t.clock.waitForSleepers(1)
        t.clock.advance(by: .milliseconds(400))
        #expect(t.client.state == .waitingToRetry(in: .milliseconds(600)))
        #expect(t.client.state.description == "waiting to retry in 600 ms")
        t.clock.advance(by: .milliseconds(550))
        #expect(t.client.state.description == "waiting to retry in 100 ms", "rounded to the tenth")
        t.clock.advance(by: .milliseconds(50))
        _ = try #require(await t.factory.transport(1), "the retry comes when the manual clock reaches the delay")
        _ = rec
    }

    @Test func aStopIsTheClosedReason() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        try #require(await t.factory.transport(0)).fail(.httpStatus(404))
        await rec.waitUntilFinished()
        #expect(t.client.state == .closed(.httpStatus(404)))
        // A late iterator sees the final state, then the end.
        var states: [RealtimeClient.State] = []
        for await s in t.client.stateChanges { states.append(s) }
        #expect(states == [.closed(.httpStatus(404))])
    }

    @Test func waitingForTheNetworkIsAState() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try TestClient("http://stream.example.test/feed") { $0.networkMonitor = monitor }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        monitor.setReachable(true)
        _ = try #require(await t.factory.transport(0))
        _ = rec
    }

    @Test func attemptsAreCountedOverTheLifeAndPerOutage() async throws {
        let t = try TestClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(RealtimeError(.network))
        await t.advance(by: .seconds(1))
        try #require(await t.factory.transport(1)).fail(RealtimeError(.network))
        await t.advance(by: .seconds(2))
        let third = try #require(await t.factory.transport(2))
        third.open()
        let events = await rec.waitFor(5)
        let opens = events.compactMap { if case .open(let info) = $0 { info } else { nil } }
        #expect(opens.map(\.attempt) == [1, 3], "counted over the client's life")
        #expect(opens.map(\.attemptInOutage) == [1, 2], "the second connection took two attempts")
    }

    @Test func backoffCanResetOnEveryOpen() async throws {
        let t = try TestClient { $0.backoff = .exponential(jitter: .none, resetAfter: .zero) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        try #require(await t.factory.transport(0)).fail(RealtimeError(.network))
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.open()
        second.fail(RealtimeError(.network))
        let events = await rec.waitFor(4)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(1)], "reset by the open")
    }
}

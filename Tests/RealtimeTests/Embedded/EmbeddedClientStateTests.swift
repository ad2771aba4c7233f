#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `state` and `stateChanges` say what the client is doing over the production SSE connection
/// on the embedded stack; attempts are counted over its life and per outage.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientStateTests {
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
        let t = try EmbeddedClient()
        let log = StateLog(t.client)
        await log.waitFor("idle") { $0 == .idle }
        #expect(t.client.state == .idle, "nothing happens before the events are iterated")
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        await log.waitFor("connecting") { $0 == .connecting(attempt: 1) }
        first.respond()
        await log.waitFor("open") { if case .open(let info) = $0 { info.attempt == 1 } else { false } }
        first.reset()
        await log.waitFor("waiting to retry") { $0.isWaitingToRetry }
        #expect(t.client.state == .waitingToRetry(in: .seconds(1)), "the 1 s backoff, on the loop's clock")
        await t.waitOutTheBackoff()
        _ = try await t.sseAttempt(2)
        await log.waitFor("connecting again") { $0 == .connecting(attempt: 2) }
        t.client.suspend()
        #expect(t.client.state == .suspended)
        await log.waitFor("suspended") { $0 == .suspended }
        t.client.close()
        await log.waitFor("closed") { $0 == .closed(.cancelled) }
        await log.ended.wait("the state changes to end after closed") { $0 }
        _ = rec
    }

    /// Any number of `stateChanges` iterators, from any task: each sees the changes, and
    /// each ends after `closed`.
    @Test func severalObserversEachSeeTheChanges() async throws {
        let t = try EmbeddedClient()
        let logs = (0..<3).map { _ in StateLog(t.client) }
        for log in logs { await log.waitFor("idle") { $0 == .idle } }
        let rec = EventRecorder(t.client)
        _ = try await t.openedSSE()
        for log in logs { await log.waitFor("open") { if case .open = $0 { true } else { false } } }
        t.client.close()
        for log in logs {
            await log.waitFor("closed") { $0 == .closed(.cancelled) }
            await log.ended.wait("the changes to end") { $0 }
        }
        _ = rec
    }

    /// Latest wins: an observer that does not read while the client goes through several
    /// states gets the newest one, not each in between, then `closed`, then the end.
    @Test func aSlowObserverSeesTheNewestState() async throws {
        let t = try EmbeddedClient()
        var changes = t.client.stateChanges.makeAsyncIterator()
        #expect(await changes.next() == .idle)
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a")
        first.reset()
        await rec.waitFor(4)
        await t.waitForTheBackoff()
        // connecting, open and the cut went by unread.
        let newest = await changes.next()
        #expect(newest?.isWaitingToRetry == true, "\(String(describing: newest))")
        t.client.close()
        #expect(await changes.next() == .closed(.cancelled))
        #expect(await changes.next() == nil)
    }

    /// The time left before a retry is measured on the client's clock, the loop's: it moves
    /// only when the test moves the loop, whatever the wall clock does.
    @Test func theRetryDelayIsMeasuredOnTheLoopsClock() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.sseAttempt(1)
        first.respond()
        first.reset()
        await t.waitForTheBackoff()
        #expect(t.client.state == .waitingToRetry(in: .seconds(1)))
        #expect(t.client.state.description == "waiting to retry in 1 s")
        t.advance(by: .milliseconds(400))
        #expect(t.client.state == .waitingToRetry(in: .milliseconds(600)))
        #expect(t.client.state.description == "waiting to retry in 600 ms")
        t.advance(by: .milliseconds(550))
        #expect(t.client.state.description == "waiting to retry in 100 ms", "rounded to the tenth")
        #expect(t.connectionCount == 1)
        t.advance(by: .milliseconds(50))
        _ = try await t.sseAttempt(2)
        _ = rec
    }

    @Test func aStopIsTheClosedReason() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        let first = try await t.sseAttempt(1)
        first.respond(status: 404, headers: [("Content-Type", "text/plain")])
        first.finish()
        await rec.waitUntilFinished()
        guard case .closed(let reason?) = t.client.state else {
            Issue.record("not closed with a reason: \(t.client.state)")
            return
        }
        #expect(reason.code == .httpStatus && reason.status == 404)
        // A late iterator sees the final state, then the end.
        var states: [RealtimeClient.State] = []
        for await s in t.client.stateChanges { states.append(s) }
        #expect(states == [.closed(reason)])
    }

    @Test func waitingForTheNetworkIsAState() async throws {
        let monitor = ManualNetworkMonitor(reachable: false)
        let t = try EmbeddedClient("http://stream.example.test/feed") { $0.networkMonitor = monitor }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        #expect(t.connectionCount == 0)
        monitor.setReachable(true)
        _ = try await t.sseAttempt(1)
        _ = rec
    }

    @Test func attemptsAreCountedOverTheLifeAndPerOutage() async throws {
        let t = try EmbeddedClient()
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        let first = try await t.sseAttempt(1)
        first.respond()
        first.reset()
        await t.waitOutTheBackoff()
        try await t.sseAttempt(2).reset()
        await t.waitOutTheBackoff()
        try await t.sseAttempt(3).respond()
        let events = await rec.waitFor(5)
        let opens = events.compactMap { if case .open(let info) = $0 { info } else { nil } }
        #expect(opens.map(\.attempt) == [1, 3], "counted over the client's life")
        #expect(opens.map(\.attemptInOutage) == [1, 2], "the second connection took two attempts")
    }

    @Test func theBackoffCanResetOnEveryOpen() async throws {
        let t = try EmbeddedClient { $0.backoff = .exponential(jitter: .none, resetAfter: .zero) }
        let rec = EventRecorder(t.client)
        defer { t.client.close() }
        try await t.sseAttempt(1).reset()
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        second.respond()
        second.reset()
        let events = await rec.waitFor(4)
        #expect(events.compactMap(\.errorEvent).map(\.retryIn) == [.seconds(1), .seconds(1)], "reset by the open")
    }

    @Test func isConnectedAndOpenConnectionsFollowTheConnection() async throws {
        let t = try EmbeddedClient()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        #expect(!t.client.isConnected && t.client.statistics.openConnections == 0)
        let first = try await t.openedSSE()
        await rec.waitFor(1)
        #expect(t.client.isConnected)
        #expect(t.client.statistics.openConnections == 1)
        first.reset()
        await rec.waitFor(3)
        #expect(!t.client.isConnected)
        #expect(t.client.statistics.openConnections == 0)
    }

    @Test func sentMessagesAndBytesAreCounted() async throws {
        let t = try EmbeddedClient("ws://peer.test/ws") { $0.sendPolicy = .queue() }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["queued"])
        first.accept()
        for task in queued { #expect(try await task.value.get() == ()) }
        try await t.client.send(.text("héllo"))
        try await t.client.send(.binary([1, 2, 3]))
        await rec.waitFor(1)
        let s = t.client.statistics
        #expect(s.messagesSent == 3)
        #expect(s.bytesSent == 6 + 6 + 3, "payload bytes: UTF-8 for text")
        #expect(first.texts == ["queued", "héllo"])
    }
}
#endif

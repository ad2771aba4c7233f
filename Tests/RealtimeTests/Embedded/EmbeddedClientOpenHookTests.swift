#if os(Linux)
import Foundation
@testable import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `Configuration.onOpen` over the production WebSocket connection on the embedded stack: the
/// hook's frames go out before the outbox, it runs on every open, its failure and its timeout
/// (on the loop's clock) fail the attempt, retried with backoff, and on SSE it runs but cannot
/// send.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientOpenHookTests {
    static let url = "ws://peer.test/ws"
    struct Rejected: Error {}

    static func client(
        _ url: String = Self.url, hook: @escaping @Sendable (RealtimeClient.OpenContext) async throws -> Void,
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> EmbeddedClient {
        try EmbeddedClient(url) {
            $0.sendPolicy = .queue()
            $0.onOpen = hook
            configure(&$0)
        }
    }

    /// Waits for work on the loop until `server` has read `count` text frames (reading runs
    /// the loop).
    static func read(_ count: Int, on server: EmbeddedWebSocketServer, _ t: EmbeddedClient) async {
        while server.texts.count < count, !Task.isCancelled {
            await t.loop.waitForWork()
        }
    }

    /// Runs the loop as work arrives until the client's close frame reached `server`, which
    /// answers it and ends the TCP connection, as a server does (RFC 6455 §7.1.1).
    static func closedByTheClient(_ server: EmbeddedWebSocketServer, _ t: EmbeddedClient) async {
        while server.closeFrame == nil, !Task.isCancelled {
            await t.loop.waitForWork()
        }
    }

    @Test func theHooksFramesGoOutBeforeTheOutboxAndSendsMadeWhileItRuns() async throws {
        let gate = Observed(false)
        let t = try Self.client { context in
            try await context.send(.text("subscribe-\(context.attempt)"))
            await gate.wait("the test to release the hook") { $0 }
            try await context.send(.text("resync"))
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["q1", "q2"])
        first.accept()
        await Self.read(1, on: first, t)
        // Sent while the hook runs: queued behind the outbox, never before the hook's frames.
        let during = await EmbeddedClientSendTests.sendInOrder(t.client, ["during"])
        t.run()
        #expect(first.texts == ["subscribe-1"])
        #expect(rec.events.isEmpty && !t.client.isConnected, "not ready (no open) while the hook runs")
        gate.update { $0 = true }
        for task in queued + during { _ = try await task.value.get() }
        try await t.client.send(.text("after"))
        await Self.read(6, on: first, t)
        #expect(first.texts == ["subscribe-1", "resync", "q1", "q2", "during", "after"])
        // The recorder's task may not have taken the open event yet: wait for it.
        #expect(await rec.waitFor(1).first?.short == "open(1)", "the open event comes once the hook returned")
    }

    @Test func theHookRunsOnEveryReconnectBeforeWhatWasQueuedDuringTheOutage() async throws {
        let t = try Self.client { context in try await context.send(.text("subscribe-\(context.attempt)")) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        for attempt in 1...3 {
            let server = try await t.webSocketAttempt(attempt)
            let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["q\(attempt)"])
            server.accept()
            for task in queued { _ = try await task.value.get() }
            await Self.read(2, on: server, t)
            #expect(server.texts == ["subscribe-\(attempt)", "q\(attempt)"])
            server.reset()
            await rec.waitFor(3 * attempt)  // open, error, closed per attempt
            if attempt < 3 { await t.waitOutTheBackoff() }
        }
    }

    @Test func aHookThatThrowsFailsTheAttemptWhichIsRetriedWithBackoff() async throws {
        let t = try Self.client { context in
            try await context.send(.text("subscribe-\(context.attempt)"))
            if context.attempt == 1 { throw Rejected() }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let queued = await EmbeddedClientSendTests.sendInOrder(t.client, ["q"])
        first.accept()
        await Self.closedByTheClient(first, t)
        let events = await rec.waitFor(1)
        #expect(first.isClosed)
        #expect(rec.summary == "error(open_hook_failed,retry)", "never ready: no open, no closed")
        let error = try #require(events.at(0)?.errorEvent)
        #expect(error.error.failureClass == .openHook)
        #expect(error.error.detail?.contains("Rejected") == true)
        #expect(error.retryIn == .seconds(1), "retried with the backoff, like a network failure")
        #expect(first.texts == ["subscribe-1"], "the outbox stays for the next connection")
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        _ = try await queued[0].value.get()
        await Self.read(2, on: second, t)
        #expect(second.texts == ["subscribe-2", "q"])
        #expect(t.client.statistics.errorsByClass[.openHook] == 1)
    }

    /// A hook that ignores cancellation is not waited for: at its timeout the attempt fails
    /// and the client goes on (the next connection opens) while that hook still runs; what it
    /// sends once it wakes is refused, not written to the failing connection.
    @Test func aHookThatIgnoresCancellationIsNotWaitedFor() async throws {
        let parked = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        let started = Observed(0)
        let lateSend = Observed<RealtimeError?>(nil)
        let t = try EmbeddedClient(Self.url) {
            $0.onOpenTimeout = .seconds(5)
            $0.onOpen = { context in
                guard context.attempt == 1 else { return }
                // Deaf to cancellation: only the test resumes it.
                await withCheckedContinuation { c in
                    parked.withLock { $0 = c }
                    started.update { $0 += 1 }
                }
                do { try await context.send(.text("late")) } catch { lateSend.update { $0 = error as? RealtimeError } }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await started.wait("the hook to park") { $0 == 1 }
        await t.loop.waitForTimers(1)
        t.advance(by: .seconds(5))
        await Self.closedByTheClient(first, t)
        await rec.waitFor(1)
        #expect(rec.summary == "error(open_hook_failed,retry)")
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await rec.waitFor(2)
        #expect(rec.events.at(1)?.short == "open(2)", "the stuck hook holds nothing back")
        parked.withLock { $0 }?.resume()
        await lateSend.wait("the late send to fail") { $0 != nil }
        #expect(lateSend.value == RealtimeError(.notConnected, detail: "the on-open hook failed"))
        #expect(first.texts.isEmpty && second.texts.isEmpty, "the late send went nowhere")
    }

    @Test func aHookThatHangsTimesOutOnTheLoopsClock() async throws {
        let hookTimers = Observed(0)
        let never = ManualClock()  // never moved: the hook waits until it is cancelled
        let t = try EmbeddedClient(Self.url) {
            $0.sendPolicy = .queue()
            $0.onOpenTimeout = .seconds(5)
            // Never returns on its own: only the client's timeout ends it.
            $0.onOpen = { context in
                if context.attempt == 1 {
                    hookTimers.update { $0 += 1 }
                    try await never.sleep(for: .seconds(3600))
                }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await hookTimers.wait("the hook to run") { $0 == 1 }
        await t.loop.waitForTimers(1)  // the hook's deadline
        t.advance(by: .seconds(4))
        #expect(!first.isClosed, "not before the timeout")
        t.advance(by: .seconds(1))
        await Self.closedByTheClient(first, t)
        await rec.waitFor(1)
        #expect(first.isClosed)
        #expect(rec.summary == "error(open_hook_failed,retry)")
        #expect(rec.events.at(0)?.errorEvent?.error.detail?.contains("did not finish within 5") == true)
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await rec.waitFor(2)
        try await t.client.send(.text("live"))
        await Self.read(1, on: second, t)
        #expect(second.texts == ["live"])
    }

    @Test func onSSETheHookRunsOnEveryOpenAndCannotSend() async throws {
        let results = Observed<[String]>([])
        let t = try Self.client("http://peer.test/stream") { context in
            do {
                try await context.send(.text("x"))
                results.update { $0.append("sent") }
            } catch let e as RealtimeError {
                results.update { $0.append("\(context.attempt):\(e.code)") }
                if context.attempt == 1 { throw e }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        await t.waitForState("connecting") { $0 == .connecting(attempt: 1) }
        try #require(t.sse(0)).respond()
        _ = await t.pumping { await rec.waitFor(1) }
        #expect(rec.summary == "error(open_hook_failed,retry)")
        #expect(rec.events.at(0)?.errorEvent?.error.underlying?.code == .sendNotSupported)
        await t.waitOutTheBackoff()
        await t.waitForState("attempt 2") { $0 == .connecting(attempt: 2) }
        let second = try #require(t.sse(1))
        second.respond()
        await results.wait("the second hook") { $0.count == 2 }
        #expect(results.value == ["1:send_not_supported", "2:send_not_supported"])
        second.event("after", id: "1")
        await rec.waitFor(3)
        #expect(rec.summary == "error(open_hook_failed,retry) open(2) event(after)")
    }

    /// A message the hook takes is the hook's: never delivered, and it does not move the
    /// resume cursor, so the next attempt resumes after the last message the consumer
    /// processed.
    @Test func aMessageTheHookTakesDoesNotMoveTheCursor() async throws {
        let t = try EmbeddedClient("http://peer.test/stream") { c in
            c.onOpen = { context in _ = try await context.receive() }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("welcome", id: "hook-1")
        await rec.waitFor(1)
        first.reset()
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == nil, "the hook's message is not a cursor")
        second.respond()
        second.event("welcome", id: "hook-2")
        second.event("news", id: "7")
        await rec.waitFor(5)
        second.reset()
        await t.waitOutTheBackoff()
        let third = try await t.sseAttempt(3)
        #expect(third.request.lastEventID == "7")
        #expect(rec.events.compactMap { $0.message?.text } == ["news"])
    }

    @Test func closingWhileTheHookRunsCancelsIt() async throws {
        let cancelled = Observed(false)
        let running = Observed(false)
        let never = ManualClock()  // never moved: the hook waits until it is cancelled
        let t = try EmbeddedClient(Self.url) {
            $0.onOpen = { _ in
                running.update { $0 = true }
                do { try await never.sleep(for: .seconds(3600)) } catch { cancelled.update { $0 = true } }
            }
        }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await running.wait("the hook to run") { $0 }
        t.client.close()
        await cancelled.wait("the hook to be cancelled") { $0 }
        await rec.waitUntilFinished()
        #expect(rec.events.isEmpty, "the connection never became ready: \(rec.summary)")
    }

    @Test func aNonPositiveTimeoutIsAConfigurationError() throws {
        #expect {
            _ = try Self.client(hook: { _ in }) { $0.onOpenTimeout = .zero }
        } throws: { ($0 as? RealtimeError)?.code == .invalidConfiguration }
    }
}
#endif

@testable import Realtime
import RealtimeTestSupport
import Testing

/// `Configuration.onOpen` on scripted transports and the manual clock: the hook's sends go
/// out before the outbox, it runs on every open, its failure and its timeout fail the attempt
/// (retried with backoff), and on SSE it runs but cannot send.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientOpenHookTests {
    static let url = "ws://127.0.0.1:8080/ws"
    struct Rejected: Error {}

    static func client(
        _ url: String = Self.url, hook: @escaping @Sendable (RealtimeClient.OpenContext) async throws -> Void,
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> TestClient {
        try TestClient(url) {
            $0.sendPolicy = .queue()
            $0.onOpen = hook
            configure(&$0)
        }
    }

    @Test func theHooksSendsGoOutBeforeTheOutboxAndSendsMadeWhileItRuns() async throws {
        let gate = Observed(false)
        let t = try Self.client { context in
            try await context.send(.text("subscribe-\(context.attempt)"))
            await gate.wait("the test to release the hook") { $0 }
            try await context.send(.text("resync"))
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let queued = await RealtimeClientSendTests.sendInOrder(t.client, ["q1", "q2"])
        first.open()
        await first.waitForSent(1)
        // Sent while the hook runs: queued behind the outbox, never before the hook's sends.
        let during = await RealtimeClientSendTests.sendInOrder(t.client, ["during"])
        #expect(RealtimeClientSendTests.texts(first) == ["subscribe-1"])
        #expect(rec.events.isEmpty && !t.client.isConnected, "not ready (no open) while the hook runs")
        gate.update { $0 = true }
        for task in queued + during { _ = try await task.value.get() }
        try await t.client.send(.text("after"))
        #expect(RealtimeClientSendTests.texts(first) == ["subscribe-1", "resync", "q1", "q2", "during", "after"])
        #expect(rec.events.first?.short == "open(1)", "the open event comes once the hook returned")
    }

    @Test func theHookRunsOnEveryReconnectBeforeWhatWasQueuedDuringTheOutage() async throws {
        let t = try Self.client { context in try await context.send(.text("subscribe-\(context.attempt)")) }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        for attempt in 1...3 {
            let transport = try #require(await t.factory.transport(attempt - 1))
            let queued = await RealtimeClientSendTests.sendInOrder(t.client, ["q\(attempt)"])
            transport.open()
            for task in queued { _ = try await task.value.get() }
            #expect(RealtimeClientSendTests.texts(transport) == ["subscribe-\(attempt)", "q\(attempt)"])
            transport.fail(RealtimeError(.network))
            await rec.waitFor(3 * attempt)  // open, error, closed per attempt
            if attempt < 3 { await t.advance(by: .seconds(1 << (attempt - 1))) }
        }
        #expect(t.factory.overlapping == 0)
    }

    @Test func aHookThatThrowsFailsTheAttemptWhichIsRetriedWithBackoff() async throws {
        let t = try Self.client { context in
            try await context.send(.text("subscribe-\(context.attempt)"))
            if context.attempt == 1 { throw Rejected() }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let queued = await RealtimeClientSendTests.sendInOrder(t.client, ["q"])
        first.open()
        await first.waitUntilClosed()
        let events = await rec.waitFor(1)
        #expect(rec.summary == "error(open_hook_failed,retry)", "never ready: no open, no closed")
        let error = try #require(events.at(0)?.errorEvent)
        #expect(error.error.failureClass == .openHook)
        #expect(error.error.detail?.contains("Rejected") == true)
        #expect(error.retryIn == .seconds(1), "retried with the backoff, like a network failure")
        #expect(RealtimeClientSendTests.texts(first) == ["subscribe-1"], "the outbox stays for the next connection")
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.open()
        _ = try await queued[0].value.get()
        #expect(RealtimeClientSendTests.texts(second) == ["subscribe-2", "q"])
        #expect(t.client.statistics.errorsByClass[.openHook] == 1)
    }

    @Test func aHookThatHangsTimesOutOnTheClientsClock() async throws {
        let clock = ManualClock()
        let t = try TestClient(Self.url, clock: clock) {
            $0.sendPolicy = .queue()
            $0.onOpenTimeout = .seconds(5)
            // Never returns on its own: only the client's timeout ends it.
            $0.onOpen = { context in
                if context.attempt == 1 { try await clock.sleep(for: .seconds(3600)) }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await clock.waitForSleepers(2)  // the hook, and its timeout
        clock.advance(by: .seconds(4))
        #expect(!first.closed, "not before the timeout")
        clock.advance(by: .seconds(1))
        await first.waitUntilClosed()
        await rec.waitFor(1)
        #expect(rec.summary == "error(open_hook_failed,retry)")
        #expect(rec.events.at(0)?.errorEvent?.error.detail?.contains("did not finish within 5") == true)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.open()
        try await t.client.send(.text("live"))
        #expect(RealtimeClientSendTests.texts(second) == ["live"])
    }

    @Test func onSSETheHookRunsOnEveryOpenAndCannotSend() async throws {
        let results = Observed<[String]>([])
        let t = try Self.client("http://127.0.0.1:8080/stream") { context in
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
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        #expect(rec.summary == "error(open_hook_failed,retry)")
        #expect(rec.events.at(0)?.errorEvent?.error.underlying?.code == .sendNotSupported)
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.open()
        await results.wait("the second hook") { $0.count == 2 }
        #expect(results.value == ["1:send_not_supported", "2:send_not_supported"])
        second.message("after", id: "1")
        await rec.waitFor(3)
        #expect(rec.summary == "error(open_hook_failed,retry) open(2) event(after)")
    }

    @Test func closingWhileTheHookRunsCancelsIt() async throws {
        let cancelled = Observed(false)
        let clock = ManualClock()
        let t = try TestClient(Self.url, clock: clock) {
            $0.onOpen = { _ in
                do { try await clock.sleep(for: .seconds(3600)) } catch { cancelled.update { $0 = true } }
            }
        }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await clock.waitForSleepers(2)
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

#if os(Linux)
@testable import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// `send` through the client over the production WebSocket connection on the embedded stack:
/// fail fast, the outbox across connections (order, once, after the open), its bounds, expiry
/// on the client's clock (the loop), cancellation, the end of the client, and `waitUntilOpen`.
/// What went out is what the server read off the byte stream.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientSendTests {
    static let url = "ws://peer.test/ws"

    static func client(_ policy: SendPolicy = .queue(), _ configure: (inout RealtimeClient.Configuration) -> Void = { _ in }) throws -> EmbeddedClient {
        try EmbeddedClient(url) {
            $0.sendPolicy = policy
            configure(&$0)
        }
    }

    /// Starts one send per text, each in a task of its own, the next once the previous one
    /// is in the outbox; returns their tasks.
    static func sendInOrder(_ client: RealtimeClient, _ texts: [String]) async -> [Task<Result<Void, RealtimeError>, Never>] {
        var tasks: [Task<Result<Void, RealtimeError>, Never>] = []
        for text in texts {
            let before = client.storage.state.withLock { $0.machine.outboxCount }
            tasks.append(Task {
                do { try await client.send(.text(text)) } catch { return .failure(error as! RealtimeError) }
                return .success(())
            })
            await client.untilOutboxHolds(before + 1)
        }
        return tasks
    }

    @Test func failFastThrowsNotConnectedBeforeTheFirstConnection() async throws {
        let t = try Self.client(.failFast)
        defer { t.client.close() }
        await #expect(throws: RealtimeError(.notConnected)) { try await t.client.send(.text("early")) }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        try await t.client.send(.text("live"))
        #expect(first.texts == ["live"])
    }

    @Test func messagesQueuedBeforeTheFirstOpenGoOutInOrderRightAfterIt() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let sends = await Self.sendInOrder(t.client, (1...5).map { "m\($0)" })
        #expect(first.texts.isEmpty, "nothing goes out before the open")
        first.accept()
        for task in sends { #expect(try await task.value.get() == ()) }
        try await t.client.send(.text("after"))
        #expect(first.texts == ["m1", "m2", "m3", "m4", "m5", "after"])
        await rec.waitFor(1)
    }

    @Test func messagesSentDuringAReconnectGoOutOnceOnTheNextConnection() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        try await t.client.send(.text("before the drop"))
        #expect(first.texts == ["before the drop"])
        first.reset()
        await rec.waitFor("the drop") { $0.errorEvent != nil }
        let sends = await Self.sendInOrder(t.client, ["a", "b", "c"])
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        for task in sends { _ = try await task.value.get() }
        #expect(first.texts == ["before the drop"])
        #expect(second.texts == ["a", "b", "c"])
    }

    @Test func aQueuedMessageExpiresOnTheClientsClockAndIsNeverSent() async throws {
        let t = try Self.client(.queue(timeout: .seconds(5)))
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let sends = await Self.sendInOrder(t.client, ["stale"])
        t.advance(by: .milliseconds(4999))
        #expect(t.client.storage.state.withLock { $0.machine.outboxCount } == 1, "not before its timeout")
        t.advance(by: .milliseconds(1))
        #expect(await sends[0].value.failureCode == .sendExpired)
        first.accept()
        await rec.waitFor(1)
        try await t.client.send(.text("fresh"))
        #expect(first.texts == ["fresh"])
    }

    @Test func theOutboxBoundsFailAtOnce() async throws {
        let t = try Self.client(.queue(maxMessages: 2, maxBytes: 1000))
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        _ = try await t.webSocketAttempt(1)
        _ = await Self.sendInOrder(t.client, ["1", "2"])
        let full = RealtimeError(.sendQueueFull, detail: "the outbox holds 2 messages or 1000 bytes")
        await #expect(throws: full) { try await t.client.send(.text("3")) }
        let large = RealtimeError(.sendQueueFull, detail: "the message is larger than the outbox (1000 bytes)")
        await #expect(throws: large) { try await t.client.send(.binary([UInt8](repeating: 0, count: 1001))) }
        _ = rec
    }

    @Test func closeFailsQueuedSendsWithCancelled() async throws {
        let t = try Self.client()
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let sends = await Self.sendInOrder(t.client, ["x", "y"])
        t.client.close()
        for task in sends { #expect(await task.value.failureCode == .cancelled) }
        await rec.waitUntilFinished()
        await #expect(throws: RealtimeError.cancelled) { try await t.client.send(.text("after")) }
        #expect(first.texts.isEmpty)
    }

    @Test func aCancelledSenderLeavesTheOutbox() async throws {
        let t = try Self.client()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let sends = await Self.sendInOrder(t.client, ["gone", "kept"])
        sends[0].cancel()
        #expect(await sends[0].value.failureCode == .cancelled)
        first.accept()
        _ = try await sends[1].value.get()
        #expect(first.texts == ["kept"])
        await rec.waitFor(1)
    }

    @Test func whenTheClientGivesUpQueuedSendsFailWithItsError() async throws {
        let t = try Self.client { $0.reconnect = .never }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let sends = await Self.sendInOrder(t.client, ["x"])
        first.refuse(status: 403)
        guard case .failure(let error) = await sends[0].value else {
            Issue.record("the send succeeded")
            return
        }
        #expect(error.code == .handshake && error.status == 403, "the refused upgrade's error: \(error)")
        await rec.waitUntilFinished()
    }

    /// While the client is suspended, and while it waits for the network, the outbox holds
    /// what is sent; both go out, in order, on the next open.
    @Test func theOutboxHoldsWhileSuspendedAndWhileTheNetworkIsDown() async throws {
        let monitor = ManualNetworkMonitor()
        let t = try Self.client { $0.networkMonitor = monitor }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        t.client.suspend()
        await EmbeddedClientOpenHookTests.closedByTheClient(first, t)
        await t.waitForState("suspended") { $0 == .suspended }
        let whileSuspended = await Self.sendInOrder(t.client, ["while suspended"])
        monitor.setReachable(false)
        t.client.resume()
        await t.waitForState("waiting for the network") { $0 == .waitingForNetwork }
        let whileDown = await Self.sendInOrder(t.client, ["while down"])
        #expect(t.connectionCount == 1 && first.texts.isEmpty, "nothing went anywhere meanwhile")
        monitor.setReachable(true)
        await t.network.waitForTransport(1)
        let second = try #require(t.webSocket(1))
        second.accept()
        for task in whileSuspended + whileDown { #expect(try await task.value.get() == ()) }
        #expect(second.texts == ["while suspended", "while down"])
    }

    /// `waitUntilOpen` does not start the client: with no consumer, no connection is made and
    /// the wait times out.
    @Test func waitUntilOpenDoesNotStartTheClient() async throws {
        let t = try Self.client(.failFast)
        defer { t.client.close() }
        let waiting = Task { try await t.client.waitUntilOpen(timeout: .seconds(5)) }
        await t.loop.waitForTimers(1)
        t.advance(by: .seconds(5))
        await #expect(throws: RealtimeError(.openTimeout, detail: "no connection opened within 5 s")) { try await waiting.value }
        #expect(t.connectionCount == 0)
        #expect(t.client.statistics.attempts == 0)
    }

    @Test func waitUntilOpenReturnsTheConnectionOrThrows() async throws {
        let t = try Self.client(.failFast)
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let waiter = Task { try await t.client.waitUntilOpen() }
        first.accept()
        #expect(try await waiter.value.attempt == 1)
        #expect(try await t.client.waitUntilOpen(timeout: .seconds(1)).attempt == 1, "open now: at once")
        first.reset()
        await rec.waitFor("the drop") { $0.errorEvent != nil }
        let timedOut = Task { try await t.client.waitUntilOpen(timeout: .seconds(10)) }
        await t.loop.waitForTimers(2)  // the backoff and the wait
        t.advance(by: .seconds(10))  // a new attempt starts and does not open
        await #expect(throws: RealtimeError(.openTimeout, detail: "no connection opened within 10 s")) { try await timedOut.value }
        let closing = Task { try await t.client.waitUntilOpen() }
        t.client.close()
        await #expect(throws: RealtimeError.cancelled) { try await closing.value }
    }

    /// When the client stops, every task in `waitUntilOpen` gets the error that stopped it, as
    /// does a `send` and a `waitUntilOpen` after; a waiting task that is cancelled gets
    /// `cancelled`.
    @Test func waitUntilOpenAndSendEndWithTheErrorThatStoppedTheClient() async throws {
        let t = try Self.client(.failFast)
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        let waiters = (0..<2).map { _ in Task { try await t.client.waitUntilOpen() } }
        let cancelled = Task { try await t.client.waitUntilOpen() }
        cancelled.cancel()
        await #expect(throws: RealtimeError.cancelled) { try await cancelled.value }
        first.refuse(status: 403)
        await rec.waitUntilFinished()
        let stop = try #require(rec.events.last?.errorEvent?.error)
        #expect(stop.status == 403)
        for waiter in waiters {
            await #expect(throws: stop) { try await waiter.value }
        }
        await #expect(throws: stop) { try await t.client.waitUntilOpen() }
        await #expect(throws: stop) { try await t.client.send(.text("late")) }
    }

    /// After an orderly end (a final close) `waitUntilOpen` and `send` throw `not_connected`.
    @Test func afterAnOrderlyEndWaitUntilOpenAndSendThrowNotConnected() async throws {
        let t = try Self.client(.queue()) { $0.reconnect = .finite }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        first.close(code: 1000)
        await rec.waitUntilFinished()
        #expect(t.client.state == .closed(nil))
        let notConnected = RealtimeError(.notConnected, detail: "the client stopped")
        await #expect(throws: notConnected) { try await t.client.waitUntilOpen() }
        await #expect(throws: notConnected) { try await t.client.send(.text("late")) }
    }
}

extension Result where Failure == RealtimeError {
    var failureCode: RealtimeError.Code? {
        if case .failure(let e) = self { return e.code }
        return nil
    }
}
#endif

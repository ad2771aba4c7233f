@testable import Realtime
import RealtimeTestSupport
import Testing

/// `send` through the client's driver on scripted WebSocket transports: fail fast, the
/// outbox across connections (order, once, after the open), its bounds, expiry on the
/// client's clock, cancellation, the end of the client, and `waitUntilOpen`.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientSendTests {
    static let url = "ws://127.0.0.1:8080/ws"

    static func queued(_ policy: SendPolicy = .queue()) throws -> TestClient {
        try TestClient(url) { $0.sendPolicy = policy }
    }

    static func texts(_ t: MockTransport) -> [String] {
        t.sent.map { if case .text(let s) = $0 { s } else { "?" } }
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
        let t = try TestClient(Self.url)
        defer { t.client.close() }
        await #expect(throws: RealtimeError(.notConnected)) { try await t.client.send(.text("early")) }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        try await t.client.send(.text("live"))
        #expect(Self.texts(first) == ["live"])
    }

    @Test func messagesQueuedBeforeTheFirstOpenGoOutInOrderRightAfterIt() async throws {
        let t = try Self.queued()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let sends = await Self.sendInOrder(t.client, (1...5).map { "m\($0)" })
        #expect(first.sent.isEmpty, "nothing goes out before the open")
        first.open()
        for task in sends { #expect(try await task.value.get() == ()) }
        try await t.client.send(.text("after"))
        #expect(Self.texts(first) == ["m1", "m2", "m3", "m4", "m5", "after"])
        await rec.waitFor(1)
    }

    @Test func messagesSentDuringAReconnectGoOutOnceOnTheNextConnection() async throws {
        let t = try Self.queued()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        try await t.client.send(.text("before the drop"))
        first.fail(RealtimeError(.network))
        await rec.waitFor("the drop") { $0.errorEvent != nil }
        let sends = await Self.sendInOrder(t.client, ["a", "b", "c"])
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.open()
        for task in sends { _ = try await task.value.get() }
        #expect(Self.texts(first) == ["before the drop"])
        #expect(Self.texts(second) == ["a", "b", "c"])
    }

    @Test func aQueuedMessageExpiresOnTheClientsClockAndIsNeverSent() async throws {
        let t = try Self.queued(.queue(timeout: .seconds(5)))
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let sends = await Self.sendInOrder(t.client, ["stale"])
        await t.advance(by: .seconds(5))
        #expect(await sends[0].value.failureCode == .sendExpired)
        first.open()
        await rec.waitFor(1)
        try await t.client.send(.text("fresh"))
        #expect(Self.texts(first) == ["fresh"])
    }

    @Test func theOutboxBoundsFailAtOnce() async throws {
        let t = try Self.queued(.queue(maxMessages: 2, maxBytes: 1000))
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        _ = try #require(await t.factory.transport(0))
        _ = await Self.sendInOrder(t.client, ["1", "2"])
        let full = RealtimeError(.sendQueueFull, detail: "the outbox holds 2 messages or 1000 bytes")
        await #expect(throws: full) { try await t.client.send(.text("3")) }
        let large = RealtimeError(.sendQueueFull, detail: "the message is larger than the outbox (1000 bytes)")
        await #expect(throws: large) { try await t.client.send(.binary([UInt8](repeating: 0, count: 1001))) }
        _ = rec
    }

    @Test func closeFailsQueuedSendsWithCancelled() async throws {
        let t = try Self.queued()
        let rec = EventRecorder(t.client)
        _ = try #require(await t.factory.transport(0))
        let sends = await Self.sendInOrder(t.client, ["x", "y"])
        t.client.close()
        for task in sends { #expect(await task.value.failureCode == .cancelled) }
        await rec.waitUntilFinished()
        await #expect(throws: RealtimeError.cancelled) { try await t.client.send(.text("after")) }
    }

    @Test func aCancelledSenderLeavesTheOutbox() async throws {
        let t = try Self.queued()
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let sends = await Self.sendInOrder(t.client, ["gone", "kept"])
        sends[0].cancel()
        #expect(await sends[0].value.failureCode == .cancelled)
        first.open()
        _ = try await sends[1].value.get()
        #expect(Self.texts(first) == ["kept"])
        await rec.waitFor(1)
    }

    @Test func whenTheClientGivesUpQueuedSendsFailWithItsError() async throws {
        let t = try TestClient(Self.url) {
            $0.sendPolicy = .queue()
            $0.reconnect = .never
        }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let sends = await Self.sendInOrder(t.client, ["x"])
        first.fail(.httpStatus(403), delivered: true)
        #expect(await sends[0].value.failureCode == .httpStatus)
        await rec.waitUntilFinished()
    }

    @Test func waitUntilOpenReturnsTheConnectionOrThrows() async throws {
        let t = try TestClient(Self.url)
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        let waiter = Task { try await t.client.waitUntilOpen() }
        first.open()
        #expect(try await waiter.value.attempt == 1)
        #expect(try await t.client.waitUntilOpen(timeout: .seconds(1)).attempt == 1, "open now: at once")
        first.fail(RealtimeError(.network))
        await rec.waitFor("the drop") { $0.errorEvent != nil }
        let timedOut = Task { try await t.client.waitUntilOpen(timeout: .seconds(10)) }
        await t.clock.waitForSleepers(2)  // the backoff and the wait
        t.clock.advance(by: .seconds(10))  // a new attempt starts and does not open
        await #expect(throws: RealtimeError(.openTimeout, detail: "no connection opened within 10 s")) { try await timedOut.value }
        let closing = Task { try await t.client.waitUntilOpen() }
        t.client.close()
        await #expect(throws: RealtimeError.cancelled) { try await closing.value }
    }
}

extension Result where Failure == RealtimeError {
    var failureCode: RealtimeError.Code? {
        if case .failure(let e) = self { return e.code }
        return nil
    }
}

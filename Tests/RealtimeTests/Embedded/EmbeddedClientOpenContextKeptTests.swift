#if os(Linux)
import Foundation
import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The on-open hook's context kept past the hook (its sends and `fail` act on its own
/// connection only), `fail` during the hook, the handshake ended by the server, the
/// not-ready state while the hook runs, and the hook on SSE.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientOpenContextKeptTests {
    typealias Hook = EmbeddedClientOpenHookTests

    /// A client whose hook keeps attempt 1's context.
    static func keeping(
        _ kept: LockedValue<RealtimeClient.OpenContext?>, configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> EmbeddedClient {
        try EmbeddedClient(Hook.url) {
            $0.onOpen = { context in if context.attempt == 1 { kept.withLock { $0 = context } } }
            configure(&$0)
        }
    }

    /// The cut of `first` (its error and close reported), the backoff, then attempt 2 open.
    static func cutAndReopen(
        _ t: EmbeddedClient, _ rec: EventRecorder, _ first: EmbeddedWebSocketServer
    ) async throws -> EmbeddedWebSocketServer {
        first.reset()
        await rec.waitFor(3)
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await rec.waitFor(4)
        return second
    }

    /// A kept context sends on its own connection after the hook returned; once that
    /// connection is gone its sends throw `not_connected` and never reach a later one.
    @Test func aKeptContextSendsOnItsConnectionOnly() async throws {
        let kept = LockedValue<RealtimeClient.OpenContext?>(nil)
        let t = try Self.keeping(kept)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        let context = try #require(kept.withLock { $0 })
        try await context.send(.text("session-1"))
        await Hook.read(1, on: first, t)
        #expect(first.texts == ["session-1"])
        let second = try await Self.cutAndReopen(t, rec, first)
        await #expect { try await context.send(.text("late")) } throws: {
            ($0 as? RealtimeError)?.code == .notConnected
        }
        try await t.client.send(.text("live"))
        await Hook.read(1, on: second, t)
        #expect(second.texts == ["live"], "the kept context's send went nowhere")
    }

    /// `fail` on a kept context after the hook closes its connection with the close code
    /// and ends the attempt with the error, judged by the reconnect policy: a
    /// `protocol_violation` is retried even when the code is in `finalCloseCodes` (only a
    /// code the server sent counts); an `unauthorized` stops.
    @Test(arguments: [(RealtimeError.Code.protocolViolation, UInt16(4403), true), (.unauthorized, 4401, false)])
    func failOnAKeptContextEndsItsConnection(code: RealtimeError.Code, closeCode: UInt16, retried: Bool) async throws {
        let kept = LockedValue<RealtimeClient.OpenContext?>(nil)
        let t = try Self.keeping(kept) { $0.reconnect.finalCloseCodes = [4403] }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        try #require(kept.withLock { $0 }).fail(RealtimeError(code), closeCode: closeCode)
        await Hook.closedByTheClient(first, t)
        #expect(first.closeFrame?.code == closeCode)
        let events = await rec.waitFor(3)
        #expect(events.at(1)?.short == "error(\(code),\(retried ? "retry" : "stop"))", "\(rec.summary)")
        try await t.expectNextAttempt(retried, rec)
    }

    /// `fail` on a kept context whose connection is over does nothing to the connection that
    /// followed.
    @Test func failOnAnEndedConnectionsContextDoesNothing() async throws {
        let kept = LockedValue<RealtimeClient.OpenContext?>(nil)
        let t = try Self.keeping(kept)
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        let second = try await Self.cutAndReopen(t, rec, first)
        try #require(kept.withLock { $0 }).fail(RealtimeError(.protocolViolation), closeCode: 4400)
        t.run()
        try await t.client.send(.text("still"))
        await Hook.read(1, on: second, t)
        #expect(second.closeFrame == nil && !second.isClosed && t.client.isConnected)
        #expect(rec.summary == "open(1) error(network,retry) closed(reconnect) open(2)")
    }

    /// `fail` during the hook fails the handshake, as throwing does: the connection is closed
    /// with the code, and the consumer sees an error and no `open`.
    @Test func failDuringTheHookFailsTheHandshake() async throws {
        let t = try Hook.client { context in
            context.fail(RealtimeError(.protocolViolation), closeCode: 4400)
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await Hook.closedByTheClient(first, t)
        #expect(first.closeFrame?.code == 4400)
        await rec.waitFor(1)
        #expect(rec.events.at(0)?.errorEvent?.willRetry == true, "\(rec.summary)")
        await t.waitOutTheBackoff()
        _ = try await t.webSocketAttempt(2)
        #expect(!EmbeddedClientOpenContextTests.opened(rec), "never ready: \(rec.summary)")
    }

    /// A hook that sends "join", then waits for a message `predicate` accepts; the code of
    /// the error that ends its wait goes to `thrown`.
    static func joinThenWait(
        recording thrown: Observed<String?>, _ predicate: @escaping @Sendable (Message) -> Bool
    ) -> @Sendable (RealtimeClient.OpenContext) async throws -> Void {
        { context in
            try await context.send(.text("join"))
            do { _ = try await context.receive(where: predicate) } catch {
                thrown.update { $0 = EmbeddedClientOpenContextTests.code(error) }
                throw error
            }
        }
    }

    /// A server that closes the connection during the handshake ends the hook's waiting
    /// receive with `cancelled`, and a close code in `finalCloseCodes` stops the client with
    /// `remote_closed`.
    @Test func aServerCloseDuringTheHandshakeEndsTheReceive() async throws {
        let thrown = Observed<String?>(nil)
        let t = try EmbeddedClient(Hook.url) {
            $0.reconnect.finalCloseCodes = [4403]
            $0.onOpen = Self.joinThenWait(recording: thrown) { _ in true }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await Hook.read(1, on: first, t)
        first.close(code: 4403, reason: "forbidden")
        await thrown.wait("the receive to end") { $0 != nil }
        #expect(thrown.value == "cancelled", "the connection's end cancels the waiting hook")
        await rec.waitUntilFinished()
        #expect(rec.summary == "error(remote_closed,stop)")
        #expect(t.connectionCount == 1)
    }

    /// A terminator that arrives during the hook closes the connection at once: the hook's
    /// receive ends, the handshake fails with `open_hook_failed` (no `open`) and is retried,
    /// and the terminator is not delivered.
    @Test func aTerminatorDuringTheHookFailsTheHandshake() async throws {
        let thrown = Observed<String?>(nil)
        let t = try EmbeddedClient(Hook.url) {
            $0.terminator = .data("[DONE]")
            $0.onOpen = Self.joinThenWait(recording: thrown) { $0.text == "ack" }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await Hook.read(1, on: first, t)
        first.sendText("[DONE]")
        await Hook.closedByTheClient(first, t)
        await thrown.wait("the receive to end") { $0 != nil }
        let events = await rec.waitFor(1)
        #expect(!EmbeddedClientOpenContextTests.opened(rec), "\(rec.summary)")
        #expect(events.at(0)?.errorEvent != nil && !rec.summary.contains("[DONE]"), "\(rec.summary)")
        let error = try #require(events.at(0)?.errorEvent)
        #expect(error.error.code == .openHookFailed && error.willRetry, "retried with backoff, like a refused handshake")
        #expect(error.error.detail?.contains("terminator arrived during the on-open hook") == true)
    }

    /// When the hook fails, the messages it passed over are dropped with the connection:
    /// the consumer never gets them, only what the next, ready connection delivers.
    @Test func theMessagesAFailedHookLeftAreDropped() async throws {
        let t = try Hook.client { context in
            try await context.send(.text("join"))
            let reply = try await context.receive { $0.text?.hasPrefix("reply") == true }
            guard reply.text == "reply ok" else { throw Hook.Rejected() }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await Hook.read(1, on: first, t)
        first.sendText("left-1")
        first.sendText("reply no")
        await Hook.closedByTheClient(first, t)
        await rec.waitFor(1)
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await Hook.read(1, on: second, t)
        second.sendText("left-2")
        second.sendText("reply ok")
        await rec.waitFor(3)
        #expect(rec.summary == "error(open_hook_failed,retry) open(2) event(left-2)")
    }

    /// While the hook runs the client is not ready: its state is still `connecting`,
    /// `isConnected` is false, and with `failFast` a send throws `not_connected`; once the
    /// hook returns it is connected.
    @Test func theClientIsNotReadyWhileTheHookRuns() async throws {
        let gate = Observed(false)
        let running = Observed(false)
        let t = try EmbeddedClient(Hook.url) {
            $0.sendPolicy = .failFast
            $0.onOpen = { _ in
                running.update { $0 = true }
                await gate.wait("the test to release the hook") { $0 }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await running.wait("the hook to run") { $0 }
        #expect(t.client.state == .connecting(attempt: 1) && !t.client.isConnected)
        await #expect { try await t.client.send(.text("early")) } throws: {
            ($0 as? RealtimeError)?.code == .notConnected
        }
        gate.update { $0 = true }
        await rec.waitFor(1)
        #expect(t.client.isConnected)
        try await t.client.send(.text("ready"))
        await Hook.read(1, on: first, t)
        #expect(first.texts == ["ready"], "the refused send never went out")
    }

    /// On SSE the hook takes an event with `receive(where:)` (an endpoint announcement) and
    /// the events it passes over reach the consumer after `open`, in order.
    @Test func onSSEReceiveWhereTakesItsEventAndLeavesTheOthers() async throws {
        let taken = Observed<String?>(nil)
        let t = try EmbeddedClient("http://peer.test/stream") {
            $0.onOpen = { context in
                let endpoint = try await context.receive { $0.text?.hasPrefix("endpoint:") == true }
                taken.update { $0 = endpoint.text }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a")
        first.event("endpoint:/post")
        first.event("b")
        await rec.waitFor(3)
        #expect(taken.value == "endpoint:/post")
        #expect(rec.summary == "open(1) event(a) event(b)")
    }
}
#endif

#if os(Linux)
import Foundation
@testable import Realtime
import RealtimeTestSupport
import RealtimeTesting
import Testing

/// The on-open hook as a handshake over the production WebSocket connection on the embedded
/// stack: it receives as well as sends, the connection is ready (`open`, `isConnected`,
/// `waitUntilOpen`) only when it returns, what it takes is never delivered, what it passes
/// over follows the `open` in order, it is told the attempt and the cursor, and a context kept
/// after the hook sends on its own connection only.
@Suite(.timeLimit(.minutes(1))) struct EmbeddedClientHandshakeTests {
    static let url = "ws://peer.test/ws"

    static func client(
        _ url: String = Self.url, hook: @escaping @Sendable (RealtimeClient.OpenContext) async throws -> Void,
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> EmbeddedClient {
        try EmbeddedClient(url) {
            $0.onOpen = hook
            configure(&$0)
        }
    }

    @Test func theHookAwaitsTheAckAndTheConnectionIsReadyWhenItReturns() async throws {
        let acked = Observed(false)
        let t = try Self.client { context in
            try await context.send(.text("init"))
            _ = try await context.receive { $0.text == "ack" }
            acked.update { $0 = true }
            try await context.send(.text("subscribe"))
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let opened = Task { try await t.client.waitUntilOpen() }
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await EmbeddedClientOpenHookTests.read(1, on: first, t)
        #expect(t.client.state == .connecting(attempt: 1) && !t.client.isConnected)
        first.sendText("ack")
        let info = try await opened.value
        #expect(info.attempt == 1 && acked.value)
        first.sendText("data")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(data)", "the ack was the hook's: never delivered")
        await EmbeddedClientOpenHookTests.read(2, on: first, t)
        #expect(first.texts == ["init", "subscribe"])
    }

    @Test func messagesTheHookPassesOverFollowTheOpenInOrder() async throws {
        let gate = Observed(false)
        let took = Observed(false)
        let t = try Self.client { context in
            let ack = try await context.receive { $0.text == "ack" }
            #expect(ack.text == "ack")
            took.update { $0 = true }
            await gate.wait("the test to release the hook") { $0 }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        first.feed(["x", "ack", "y"].flatMap { first.textFrame($0) })
        first.sendText("z")
        await took.wait("the ack to be taken") { $0 }
        #expect(t.client.storage.state.withLock { $0.handshake.held.map { $0.message.text } } == ["x", "y", "z"])
        #expect(rec.events.isEmpty)
        gate.update { $0 = true }
        await rec.waitFor(4)
        first.sendText("after")
        await rec.waitFor(5)
        #expect(rec.summary == "open(1) event(x) event(y) event(z) event(after)")
        #expect(t.client.statistics.messages == 5, "the ack counts as received")
    }

    @Test func theHookIsToldTheAttemptAndTheCursorOfItsRequest() async throws {
        let seen = Observed<[String]>([])
        let t = try Self.client("http://peer.test/stream", hook: { context in
            seen.update { $0.append("\(context.attempt):\(context.cursor ?? "-")") }
        }) { $0.lastEventID = "5" }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.openedSSE()
        first.event("a", id: "6")
        first.event("b", id: "7")
        await rec.waitFor(3)
        first.reset()
        await t.waitOutTheBackoff()
        let second = try await t.sseAttempt(2)
        #expect(second.request.lastEventID == "7")
        second.respond()
        await seen.wait("the second hook") { $0.count == 2 }
        #expect(seen.value == ["1:5", "2:7"])
    }

    @Test func aFailFastSendDuringTheHandshakeThrowsNotConnected() async throws {
        let gate = Observed(false)
        let t = try Self.client { context in
            try await context.send(.text("hello"))
            await gate.wait("the test to release the hook") { $0 }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await EmbeddedClientOpenHookTests.read(1, on: first, t)
        await #expect { try await t.client.send(.text("too early")) } throws: {
            ($0 as? RealtimeError)?.code == .notConnected
        }
        gate.update { $0 = true }
        await rec.waitFor(1)
        try await t.client.send(.text("ready"))
        await EmbeddedClientOpenHookTests.read(2, on: first, t)
        #expect(first.texts == ["hello", "ready"])
    }

    @Test func aReceiveOnAConnectionThatEndsEndsTheHookAndTheAttemptFailsWithTheCause() async throws {
        let failure = Observed<RealtimeError?>(nil)
        let t = try Self.client { context in
            do {
                _ = try await context.receive()
            } catch let e as RealtimeError {
                failure.update { $0 = e }
                throw e
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        first.reset()
        _ = await t.pumping { await rec.waitFor(1) }
        #expect(rec.summary == "error(network,retry)", "the transport's failure, not the hook's")
        await failure.wait("the hook's receive to end") { $0 != nil }
        #expect([.notConnected, .cancelled].contains(failure.value?.code))
    }

    /// A context kept after its hook returned sends on its own connection only, and fails it:
    /// the close carries the application's code and the attempt ends with its error (retried).
    @Test func aKeptContextSendsOnItsConnectionAndFailsIt() async throws {
        let contexts = Observed<[RealtimeClient.OpenContext]>([])
        let t = try Self.client { context in contexts.update { $0.append(context) } }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try await t.webSocketAttempt(1)
        first.accept()
        await rec.waitFor(1)
        let context = try #require(contexts.value.first)
        try await context.send(.text("complete 1"))
        await EmbeddedClientOpenHookTests.read(1, on: first, t)
        #expect(first.texts == ["complete 1"])
        context.fail(RealtimeError(.protocolViolation, detail: "an id the server had completed"), closeCode: 4400)
        await EmbeddedClientOpenHookTests.closedByTheClient(first, t)
        #expect(first.closeFrame?.code == 4400)
        _ = await t.pumping { await rec.waitFor(3) }
        #expect(rec.summary == "open(1) error(protocol_violation,retry) closed(reconnect)")
        await t.waitOutTheBackoff()
        let second = try await t.webSocketAttempt(2)
        second.accept()
        await rec.waitFor(4)
        await #expect { try await context.send(.text("late")) } throws: { ($0 as? RealtimeError)?.code == .notConnected }
        context.fail(RealtimeError(.protocolViolation), closeCode: 4400)
        t.run()
        #expect(!second.isClosed && second.texts.isEmpty, "the old context never reaches the new connection")
    }

    @Test func onSSETheHookReadsTheFirstEvent() async throws {
        let endpoint = Observed<String?>(nil)
        let t = try Self.client("http://peer.test/sse") { context in
            let first = try await context.receive { $0.type == "endpoint" }
            endpoint.update { $0 = first.text }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let server = try await t.openedSSE()
        server.event("/messages?session=1", type: "endpoint")
        server.event("hello", id: "1")
        await rec.waitFor(2)
        #expect(endpoint.value == "/messages?session=1")
        #expect(rec.summary == "open(1) event(hello)")
    }
}
#endif

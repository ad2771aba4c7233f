@testable import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// The on-open hook as a handshake, on scripted transports: it receives as well as sends, the
/// connection is ready (`open`, `isConnected`, `waitUntilOpen`, the outbox) only when it
/// returns, what it takes is never delivered, what it passes over follows the `open` in order,
/// it is told the attempt and the cursor, and a full handshake buffer pauses the transport.
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientHandshakeTests {
    static let url = "ws://127.0.0.1:8080/ws"

    static func client(
        _ url: String = Self.url, hook: @escaping @Sendable (RealtimeClient.OpenContext) async throws -> Void,
        configure: (inout RealtimeClient.Configuration) -> Void = { _ in }
    ) throws -> TestClient {
        try TestClient(url) {
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
        let first = try #require(await t.factory.transport(0))
        first.open()
        await first.waitForSent(1)
        #expect(t.client.state == .connecting(attempt: 1) && !t.client.isConnected)
        first.message("ack")
        let info = try await opened.value
        #expect(info.attempt == 1 && acked.value)
        first.message("data")
        await rec.waitFor(2)
        #expect(rec.summary == "open(1) event(data)", "the ack was the hook's: never delivered")
        #expect(RealtimeClientSendTests.texts(first) == ["init", "subscribe"])
    }

    @Test func messagesTheHookPassesOverFollowTheOpenInOrder() async throws {
        let gate = Observed(false)
        let t = try Self.client { context in
            let ack = try await context.receive { $0.text == "ack" }
            #expect(ack.text == "ack")
            await gate.wait("the test to release the hook") { $0 }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.emit(contentsOf: ["x", "ack", "y"].map { .message(Message(content: .text($0))) })
        first.message("z")
        await eventually("the ack to be taken") { t.client.storage.state.withLock { $0.handshake.held.count } == 3 }
        #expect(rec.events.isEmpty)
        gate.update { $0 = true }
        first.message("after")
        await rec.waitFor(5)
        #expect(rec.summary == "open(1) event(x) event(y) event(z) event(after)")
        #expect(t.client.statistics.messages == 5, "the ack counts as received")
    }

    @Test func theHookIsToldTheAttemptAndTheCursorOfItsRequest() async throws {
        let seen = Observed<[String]>([])
        let t = try Self.client("http://127.0.0.1:8080/stream", hook: { context in
            seen.update { $0.append("\(context.attempt):\(context.cursor ?? "-")") }
        }) { $0.lastEventID = "5" }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.message("a", id: "6")
        first.message("b", id: "7")
        await rec.waitFor(3)
        first.fail(RealtimeError(.network))
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        #expect(second.request.lastEventID == "7")
        second.open()
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
        let first = try #require(await t.factory.transport(0))
        first.open()
        await first.waitForSent(1)
        await #expect { try await t.client.send(.text("too early")) } throws: {
            ($0 as? RealtimeError)?.code == .notConnected
        }
        gate.update { $0 = true }
        await rec.waitFor(1)
        try await t.client.send(.text("ready"))
        #expect(RealtimeClientSendTests.texts(first) == ["hello", "ready"])
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
        let first = try #require(await t.factory.transport(0))
        first.open()
        first.fail(RealtimeError(.network))
        await rec.waitFor(1)
        #expect(rec.summary == "error(network,retry)", "the transport's failure, not the hook's")
        await failure.wait("the hook's receive to end") { $0 != nil }
        #expect([.notConnected, .cancelled].contains(failure.value?.code))
    }

    @Test func aFullHandshakeBufferPausesTheTransportUntilTheHookTakesHalf() async throws {
        let take = Observed(0)
        let t = try Self.client(hook: { context in
            for taken in 0..<6 {
                await take.wait("the test to let the hook take more") { $0 > taken }
                _ = try await context.receive()
            }
        }) { $0.eventBufferCapacity = 4 }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        for i in 1...3 { #expect(first.emit(.message(Message(content: .text("\(i)")))), "room for message \(i)") }
        #expect(!first.emit(.message(Message(content: .text("4")))), "the fourth fills the buffer: pause")
        take.update { $0 = 1 }
        await eventually("one taken") { t.client.storage.state.withLock { $0.handshake.held.count } == 3 }
        #expect(first.demands == 0, "still above half")
        take.update { $0 = 2 }
        await eventually("two taken, and the transport resumed") { first.demands == 1 }
        for i in 5...8 { first.message("\(i)") }
        take.update { $0 = 6 }
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) event(7) event(8)")
    }

    /// A context kept after its hook returned sends on its own connection only, and fails it:
    /// the close carries the application's code and the attempt ends with its error (retried).
    @Test func aKeptContextSendsOnItsConnectionAndFailsIt() async throws {
        let contexts = Observed<[RealtimeClient.OpenContext]>([])
        let t = try Self.client { context in contexts.update { $0.append(context) } }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        await rec.waitFor(1)
        let context = try #require(contexts.value.first)
        try await context.send(.text("complete 1"))
        #expect(RealtimeClientSendTests.texts(first) == ["complete 1"])
        context.fail(RealtimeError(.protocolViolation, detail: "an id the server had completed"), closeCode: 4400)
        await first.waitUntilClosed()
        #expect(first.closeCode == 4400)
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) error(protocol_violation,retry) closed(reconnect)")
        await t.advance(by: .seconds(1))
        let second = try #require(await t.factory.transport(1))
        second.open()
        await rec.waitFor(4)
        await #expect { try await context.send(.text("late")) } throws: { ($0 as? RealtimeError)?.code == .notConnected }
        context.fail(RealtimeError(.protocolViolation), closeCode: 4400)
        #expect(!second.closed && second.sent.isEmpty, "the old context never reaches the new connection")
    }

    @Test func onSSETheHookReadsTheFirstEvent() async throws {
        let endpoint = Observed<String?>(nil)
        let t = try Self.client("http://127.0.0.1:8080/sse") { context in
            let first = try await context.receive { $0.type == "endpoint" }
            endpoint.update { $0 = first.text }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let transport = try #require(await t.factory.transport(0))
        transport.open()
        transport.emit(.message(.sse(type: "endpoint", data: "/messages?session=1", id: "")))
        transport.message("hello", id: "1")
        await rec.waitFor(2)
        #expect(endpoint.value == "/messages?session=1")
        #expect(rec.summary == "open(1) event(hello)")
    }
}

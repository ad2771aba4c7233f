@testable import Realtime
import RealtimeTestSupport
import Testing
@_spi(Transport) import RealtimeCore

/// The on-open hook as a handshake on a scripted transport: a full handshake buffer pauses the
/// transport until the hook takes half (the rest of the handshake's tests run on the embedded
/// stack, `EmbeddedClientHandshakeTests`).
@Suite(.timeLimit(.minutes(1))) struct RealtimeClientHandshakeTests {
    @Test func aFullHandshakeBufferPausesTheTransportUntilTheHookTakesHalf() async throws {
        let take = Observed(0)
        let took = Observed(0)
        let t = try TestClient("ws://127.0.0.1:8080/ws") {
            $0.eventBufferCapacity = 4
            $0.onOpen = { context in
                for taken in 0..<6 {
                    await take.wait("the test to let the hook take more") { $0 > taken }
                    _ = try await context.receive()
                    took.update { $0 = taken + 1 }
                }
            }
        }
        defer { t.client.close() }
        let rec = EventRecorder(t.client)
        let first = try #require(await t.factory.transport(0))
        first.open()
        for i in 1...3 { #expect(first.emit(.message(Message(content: .text("\(i)")))), "room for message \(i)") }
        #expect(!first.emit(.message(Message(content: .text("4")))), "the fourth fills the buffer: pause")
        take.update { $0 = 1 }
        await took.wait("one taken") { $0 == 1 }
        #expect(t.client.storage.state.withLock { $0.handshake.held.count } == 3)
        #expect(first.demands == 0, "still above half")
        take.update { $0 = 2 }
        await took.wait("two taken") { $0 == 2 }
        #expect(first.demands == 1, "at half, the transport reads again before the hook's receive returns")
        for i in 5...8 { first.message("\(i)") }
        take.update { $0 = 6 }
        await rec.waitFor(3)
        #expect(rec.summary == "open(1) event(7) event(8)")
    }
}

@testable import RealtimeSocketIO
import Testing

/// The buffer behind `SocketIOClient.events`: a consumer whose task is cancelled stops
/// waiting, and the buffer serves the next consumer as before.
@Suite("SocketIOInbox", .timeLimit(.minutes(1)))
struct SocketIOInboxTests {
    static func connected(_ attempt: Int) -> SocketIOEvent {
        .connected(SocketIOConnection(attempt: attempt, engineSID: "e\(attempt)", sids: [:], recovered: []))
    }

    static func attempt(of event: SocketIOEvent?) -> Int? {
        if case .connected(let c)? = event { return c.attempt }
        return nil
    }

    @Test("a cancelled consumer's next() returns nil, whether it was already waiting or not")
    func cancelledConsumerStopsWaiting() async {
        let inbox = SocketIOInbox(capacity: 4)
        let waiting = Task { await inbox.next() }
        waiting.cancel()
        #expect(await waiting.value == nil)
    }

    @Test("after a cancelled consumer, the next one gets what is put, in order")
    func nextConsumerAfterCancellation() async {
        let inbox = SocketIOInbox(capacity: 4)
        let cancelled = Task { await inbox.next() }
        cancelled.cancel()
        _ = await cancelled.value
        await inbox.put(Self.connected(1))
        await inbox.put(Self.connected(2))
        #expect(Self.attempt(of: await inbox.next()) == 1)
        #expect(Self.attempt(of: await inbox.next()) == 2)
        inbox.finish()
        #expect(await inbox.next() == nil)
    }

    @Test("a buffered event is still served to a consumer whose task is cancelled")
    func bufferedEventBeforeCancellation() async {
        let inbox = SocketIOInbox(capacity: 4)
        await inbox.put(Self.connected(7))
        let t = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await inbox.next()
        }
        #expect(Self.attempt(of: await t.value) == 7)
    }
}

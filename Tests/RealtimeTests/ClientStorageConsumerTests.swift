@testable import Realtime
import Testing
@_spi(Transport) import RealtimeCore

/// The per-event consumer's side of the client's storage, below the public API: whatever the
/// buffer holds, the consumer is served events, never a batch it cannot hand on.
@Suite(.timeLimit(.minutes(1))) struct ClientStorageConsumerTests {
    @Test func aBatchReachingThePerEventConsumerIsServedAsItsMessagesInOrderEachWithItsNumber() throws {
        let t = try TestClient()
        defer { t.client.close() }
        let storage = t.client.storage
        let batch = MessageBatch((1...3).map { Message.sse(type: "message", data: "m\($0)", id: "\($0)") })
        let served: [(String, UInt64)] = storage.consumer.withLock { c in
            // Newest first: the batch (messages 5, 6, 7), then a lone event (8).
            c.hand = [
                ClientStorage.Envelope(event: .event(.sse(type: "message", data: "m4", id: "4")), sequence: 8),
                ClientStorage.Envelope(batch: batch, sequence: 7),
            ]
            var resume: (any Transport)?
            var out: [(String, UInt64)] = []
            while let (event, envelope) = storage.serveEvent(&c, resume: &resume) {
                guard case .event(let m) = event else { continue }
                out.append((m.text ?? "?", envelope.sequence))
                #expect(envelope.resumeID == m.id, "the envelope carries its own message's id")
            }
            return out
        }
        #expect(served.map(\.0) == ["m1", "m2", "m3", "m4"])
        #expect(served.map(\.1) == [5, 6, 7, 8])
    }
}

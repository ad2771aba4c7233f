import Realtime
import RealtimeTestSupport
import Synchronization
import Testing
@_spi(Transport) import RealtimeCore

extension ClientBatchEvent {
    /// `open(N)`, `[a,b,c]` for a batch's texts, `error(code,retry|stop)`, `closed(...)`.
    var short: String {
        switch self {
        case .open(let i): return "open(\(i.attempt))"
        case .messages(let b): return "[" + b.map { $0.text ?? "?" }.joined(separator: ",") + "]"
        case .error(let e): return "error(\(e.error.code),\(e.willRetry ? "retry" : "stop"))"
        case .closed(let c): return "closed(\(c.willReconnect ? "reconnect" : "final"))"
        }
    }
}

enum RealtimeClientBatchTests {
    static func batch(_ ids: ClosedRange<Int>) -> MessageBatch {
        MessageBatch(ids.map { Message.sse(type: "message", data: "m\($0)", id: "\($0)") })
    }
}

@Suite(.timeLimit(.minutes(1))) struct MessageBatchDescriptionTests {
    @Test func aBatchIsSummarisedNotPrinted() {
        let batch = RealtimeClientBatchTests.batch(1...3)
        #expect("\(batch)" == "3 messages, 6 bytes, ids 1…3")
        #expect("\(ClientBatchEvent.messages(batch))" == "messages: 3 messages, 6 bytes, ids 1…3")
        #expect("\(MessageBatch([Message(content: .binary([1, 2]))]))" == "1 message, 2 bytes")
        #expect("\(batch[1])" == "\"m2\" (id 2)")
    }
}

@testable import RealtimeSocketIO
import Testing

/// Ack ids per namespace, each waiter taken once, and a connection's end failing only what
/// went out on it.
@Suite("SocketIOAckTable", .timeLimit(.minutes(1)))
struct SocketIOAckTableTests {
    @Test("ids count from 0 per namespace and are never reused")
    func ids() {
        var t = SocketIOAckTable<Int>()
        #expect(t.allocate(namespace: "/").id == 0)
        #expect(t.allocate(namespace: "/").id == 1)
        #expect(t.allocate(namespace: "/admin").id == 0)
        let k = t.allocate(namespace: "/")
        t.wait(k, 7)
        #expect(t.take(k) == 7)
        #expect(t.allocate(namespace: "/").id == 3)
    }

    @Test("a waiter is taken once: a second ack, or one for an id never sent, finds nothing")
    func once() {
        var t = SocketIOAckTable<Int>()
        let k = t.allocate(namespace: "/")
        t.wait(k, 1)
        #expect(t.take(k) == 1)
        #expect(t.take(k) == nil)
        #expect(t.take(.init(namespace: "/", id: 99)) == nil)
    }

    @Test("the end of a connection takes what was sent on it, not what waits in the outbox")
    func connectionEnd() {
        var t = SocketIOAckTable<Int>()
        let sent = t.allocate(namespace: "/")
        let queued = t.allocate(namespace: "/")
        let other = t.allocate(namespace: "/b")
        t.wait(sent, 1)
        t.wait(queued, 2)
        t.wait(other, 3)
        t.markSent(sent)
        t.markSent(other)
        #expect(t.takeSent(namespace: "/b") == [3])
        #expect(t.takeSent() == [1])
        #expect(t.count == 1)
        #expect(t.takeAll() == [2])
    }
}

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
        #expect(t.sent(sent, on: 1) == nil)
        #expect(t.sent(other, on: 1) == nil)
        #expect(t.takeSent(namespace: "/b") == [3])
        #expect(t.connectionEnded(through: 1) == [1])
        #expect(t.count == 1)
        #expect(t.takeAll() == [2])
    }

    @Test("an end takes only what went out on that connection or before, not on the next one")
    func endsByAttempt() {
        var t = SocketIOAckTable<Int>()
        let first = t.allocate(namespace: "/")
        let second = t.allocate(namespace: "/")
        t.wait(first, 1)
        t.wait(second, 2)
        #expect(t.sent(first, on: 1) == nil)
        #expect(t.sent(second, on: 2) == nil)
        #expect(t.connectionEnded(through: 1) == [1], "the end of attempt 1, read late, spares attempt 2's")
        #expect(t.connectionEnded(through: 2) == [2])
    }

    @Test("an emit whose connection ended before it was marked sent is taken at once")
    func sentAfterItsEnd() {
        var t = SocketIOAckTable<Int>()
        let late = t.allocate(namespace: "/")
        t.wait(late, 1)
        #expect(t.connectionEnded(through: 3).isEmpty)
        #expect(t.sent(late, on: 3) == 1, "nothing can acknowledge it any more")
        #expect(t.count == 0)
        let next = t.allocate(namespace: "/")
        t.wait(next, 2)
        #expect(t.sent(next, on: 4) == nil)
        #expect(t.count == 1)
    }
}

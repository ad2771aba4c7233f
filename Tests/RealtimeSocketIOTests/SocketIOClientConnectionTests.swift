#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import Synchronization
import Testing

/// What each connection does, on the embedded rig of ``SocketIOClientTests``: a fresh auth
/// payload, an `onConnect` that throws, the server's close packet, recovery when the `pid`
/// changes or never came, and a consumer of `events` that is cancelled.
@Suite("SocketIOClient: connections", .timeLimit(.minutes(2)))
struct SocketIOClientConnectionTests {
    typealias Rig = SocketIOClientTests.Rig

    struct Refused: Error {}

    /// Numbers from 1, from any task.
    final class Count: Sendable {
        private let value = Mutex(0)
        func next() -> Int { value.withLock { $0 += 1; return $0 } }
    }

    /// The auth payload is asked for on every connection, so a reconnect carries a fresh one.
    @Test("auth is asked for again on every connection: the reconnect's CONNECT carries a fresh token")
    func freshAuth() async throws {
        let tokens = Count()
        let rig = try Rig { $0.auth = { _ in ["token": "t\(tokens.next())"] } }
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect()
        #expect(first.sentTexts == [#"40{"token":"t1"}"#])
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next()) != nil)
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.connect(2)
        #expect(second.sentTexts == [#"40{"token":"t2"}"#])
        rig.socket.realtime.close()
    }

    /// An `onConnect` that throws fails the attempt: no `connected` for it, and the client
    /// retries with backoff.
    @Test("an onConnect that throws fails the attempt, which is retried with backoff")
    func onConnectThrows() async throws {
        let calls = Count()
        let rig = try Rig { $0.onConnect = { _ in if calls.next() == 1 { throw Refused() } } }
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect()
        #expect(await first.waitForClose() != nil, "the client closed the attempt")
        await rig.waitToRetry()
        #expect(rig.servers.count == 1, "the retry waits for its backoff")
        rig.loop.advanceTime(by: .seconds(1))
        _ = await rig.connect(2)
        #expect(SocketIOClientTests.connection(await events.next())?.attempt == 2, "the failed attempt was never connected")
        rig.socket.realtime.close()
    }

    /// The server's close packet (`1`) is an orderly end: `.disconnected` without an error,
    /// and the client reconnects as its policy says.
    @Test("a close packet is an orderly end: disconnected without an error, then a reconnect")
    func closePacket() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect()
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        first.text("1")
        let end = SocketIOClientTests.disconnection(await events.next())
        #expect(end != nil && end?.error == nil && end?.willReconnect == true)
        #expect(first.closeCode == 1000)
        await rig.advancePastTheBackoff(by: .seconds(1))
        _ = await rig.connect(2)
        #expect(SocketIOClientTests.connection(await events.next())?.attempt == 2)
        rig.socket.realtime.close()
    }

    /// A CONNECT answer with another `pid` is a new session: not recovered, and the next
    /// CONNECT sends the new `pid` without the old session's offset.
    @Test("a new pid is not a recovery, and the old offset is not sent for it")
    func newPid() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect(pid: "p1")
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        first.text(#"42["tick",1,"o1"]"#)
        #expect(SocketIOClientTests.message(await events.next())?.offset == "o1")
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next()) != nil)
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.servers.attempt(2)
        second.handshake()
        #expect(await second.waitForSent(1) == [#"40{"pid":"p1","offset":"o1"}"#])
        second.text(#"40{"sid":"a2","pid":"p2"}"#)
        #expect(SocketIOClientTests.connection(await events.next())?.recovered == [])
        second.end()
        #expect(SocketIOClientTests.disconnection(await events.next()) != nil)
        await rig.advancePastTheBackoff(by: .seconds(2))
        let third = await rig.servers.attempt(3)
        third.handshake()
        #expect(await third.waitForSent(1) == [#"40{"pid":"p2"}"#])
        rig.socket.realtime.close()
    }

    /// Without a `pid`, no argument is taken for an offset: events have none, and the next
    /// CONNECT carries no recovery fields.
    @Test("without a pid an event's trailing string is no offset, and the reconnect's CONNECT has no recovery fields")
    func noPid() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect()
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        first.text(#"42["say","hello"]"#)
        let message = SocketIOClientTests.message(await events.next())
        #expect(message?.offset == nil && message?.arguments.count == 1)
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next()) != nil)
        #expect(rig.socket.realtime.lastEventID == nil)
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.servers.attempt(2)
        second.handshake()
        #expect(await second.waitForSent(1) == ["40"])
        rig.socket.realtime.close()
    }

    /// `close()` sends DISCONNECT for every namespace, then closes the WebSocket with 1000.
    @Test("close() disconnects every namespace, then closes 1000")
    func closeDisconnectsEveryNamespace() async throws {
        let rig = try Rig { $0.namespaces = ["/", "/admin"] }
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.connect(sids: ["/": "a", "/admin": "b"])
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        let closing = Task { [socket = rig.socket] in await socket.close() }
        #expect(await server.waitForClose() == 1000)
        await closing.value
        #expect(server.sentTexts == ["40", "40/admin,", "41", "41/admin,"])
    }

    /// A consumer of `events` whose task is cancelled gets nil; the client keeps running
    /// and a later consumer gets the next events.
    @Test("a cancelled consumer of events gets nil and the client keeps running")
    func cancelledConsumer() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.connect()
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        let waiting = Task { [socket = rig.socket] in
            var it = socket.events.makeAsyncIterator()
            return await it.next()
        }
        waiting.cancel()
        #expect(await waiting.value == nil)
        server.text(#"42["after"]"#)
        #expect(SocketIOClientTests.message(await events.next())?.name == "after")
        #expect(rig.socket.realtime.isConnected)
        rig.socket.realtime.close()
    }
}
#endif

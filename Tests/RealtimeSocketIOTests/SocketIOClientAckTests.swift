#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import Testing

/// What ends a namespace or an acknowledgement, on the embedded rig of ``SocketIOClientTests``:
/// the server's DISCONNECT of one namespace, the ack timeout counted from the call while the
/// emit waits in the outbox, `close()`, and a binary emit with no connection.
@Suite("SocketIOClient: namespaces and acks", .timeLimit(.minutes(2)))
struct SocketIOClientAckTests {
    typealias Rig = SocketIOClientTests.Rig

    static func code(_ error: any Error) -> SocketIOError.Code? { (error as? SocketIOError)?.code }

    /// A client with the outbox on, connected: its events (the connection read) and the
    /// first attempt's server.
    static func connectedWithOutbox() async throws -> (Rig, SocketIOEvents.AsyncIterator, EmbeddedEngineIOServer) {
        let rig = try Rig { $0.client.sendPolicy = .queue() }
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect()
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        return (rig, events, first)
    }

    /// A server DISCONNECT of one namespace (`41` for `/`, `41/admin,` for `/admin`) yields
    /// `.disconnected` for that namespace, fails the acks sent on it with
    /// `namespace_disconnected` (the other namespace's ack still comes), and the next
    /// connection joins it again with a CONNECT.
    @Test("a server DISCONNECT of a namespace: its disconnected event, its acks fail, the next connection joins it again", arguments: ["/", "/admin"])
    func namespaceDisconnect(namespace: String) async throws {
        let rig = try Rig { $0.namespaces = ["/", "/admin"] }
        let socket = rig.socket
        let other = namespace == "/" ? "/admin" : "/"
        var events = socket.events.makeAsyncIterator()
        let first = await rig.connect(sids: ["/": "a", "/admin": "b"])
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        let dropped = Task { try await socket.emitWithAck("q", namespace: namespace) }
        await first.waitForSent(3)
        let kept = Task { try await socket.emitWithAck("q", namespace: other) }
        await first.waitForSent(4)
        first.text(namespace == "/" ? "41" : "41\(namespace),")
        let end = SocketIOClientTests.disconnection(await events.next())
        #expect(end?.namespace == namespace && end?.error?.code == .namespaceDisconnected)
        #expect(end?.willReconnect == false, "not joined again on this connection")
        first.text(other == "/" ? "430[7]" : "43\(other),0[7]")
        #expect(try await kept.value.decode(Int.self) == 7, "the other namespace is still joined")
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next())?.namespace == nil)
        // Had the DISCONNECT left it waiting, the end of the connection would have failed it.
        await #expect { try await dropped.value } throws: { Self.code($0) == .namespaceDisconnected }
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.servers.attempt(2)
        second.handshake()
        #expect(await second.waitForSent(2) == ["40", "40/admin,"])
        socket.realtime.close()
    }

    /// The ack timeout counts from the call, time in the outbox included: an emit made while
    /// disconnected that goes out 1 s later fails with `ack_timeout` 3 s after the call, and
    /// the server's late answer is ignored.
    @Test("the ack timeout counts from the call: time in the outbox is part of it")
    func ackTimeoutCountsTheOutbox() async throws {
        var (rig, events, first) = try await Self.connectedWithOutbox()
        let socket = rig.socket
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next())?.willReconnect == true)
        await rig.waitToRetry()
        let call = Task { try await socket.emitWithAck("slow", timeout: .seconds(3)) }
        await rig.loop.waitForTimers(2)  // the backoff and the ack's timeout
        rig.loop.advanceTime(by: .seconds(1))
        let second = await rig.connect(2)
        #expect(await second.waitForSent(2) == ["40", #"420["slow"]"#], "the emit left the outbox 1 s after the call")
        #expect(SocketIOClientTests.connection(await events.next())?.attempt == 2)
        rig.loop.advanceTime(by: .seconds(2))
        second.text("430[]")
        await #expect { try await call.value } throws: { Self.code($0) == .ackTimeout }
        second.text(#"42["sync"]"#)
        #expect(SocketIOClientTests.message(await events.next())?.name == "sync")
        #expect(socket.unmatchedAcks == 1, "the answer after the timeout is ignored")
        socket.realtime.close()
    }

    /// `close()` fails every waiting acknowledgement with `closed`: one whose emit went out,
    /// and one whose emit still waits in the outbox.
    @Test("close() fails waiting acks with closed, sent or still in the outbox")
    func closeFailsWaitingAcks() async throws {
        var (rig, events, first) = try await Self.connectedWithOutbox()
        let socket = rig.socket
        let sent = Task { try await socket.emitWithAck("sent") }
        await first.waitForSent(2)
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next()) != nil)
        await rig.waitToRetry()
        let queued = Task { try await socket.emitWithAck("queued") }
        await rig.loop.waitForTimers(2)  // the backoff and the queued ack's timeout
        await socket.close()
        await #expect { try await queued.value } throws: { Self.code($0) == .closed }
        // The connection it went out on ended first: that ack failed with connection_lost then.
        await #expect { try await sent.value } throws: { Self.code($0) == .connectionLost }

        let open = try Rig()
        var more = open.socket.events.makeAsyncIterator()
        let server = await open.connect()
        #expect(SocketIOClientTests.connection(await more.next()) != nil)
        let waiting = Task { [socket = open.socket] in try await socket.emitWithAck("waiting") }
        await server.waitForSent(2)
        let closing = Task { [socket = open.socket] in await socket.close() }
        #expect(await server.waitForClose() == 1000)
        await closing.value
        await #expect { try await waiting.value } throws: { Self.code($0) == .closed }
    }

    /// An emit with binary attachments needs an open connection: while disconnected it
    /// throws `not_connected` even with the outbox on, and nothing of it goes out later.
    @Test("a binary emit while disconnected throws not_connected, outbox or not, and never goes out")
    func binaryEmitWhileDisconnected() async throws {
        var (rig, events, first) = try await Self.connectedWithOutbox()
        let socket = rig.socket
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next()) != nil)
        await rig.waitToRetry()
        await #expect { try await socket.emit("up", SocketIOBinary([1, 2])) } throws: { Self.code($0) == .notConnected }
        let text = Task { try await socket.emit("after", 1) }
        rig.loop.advanceTime(by: .seconds(1))
        let second = await rig.connect(2)
        try await text.value
        #expect(await second.waitForSent(2) == ["40", #"42["after",1]"#])
        socket.realtime.close()
    }
}
#endif

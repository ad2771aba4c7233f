#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import Testing

/// What an emit puts on the wire and what it refuses, on the embedded rig of
/// ``SocketIOClientTests``: the server's `maxPayload`, `acknowledge(_:_:)`, a BINARY_ACK
/// answer, fail-fast while disconnected, and the URL built from `path` and the query.
@Suite("SocketIOClient: emits", .timeLimit(.minutes(2)))
struct SocketIOClientEmitTests {
    typealias Rig = SocketIOClientTests.Rig

    /// A connected rig whose server announced `maxPayload`, its `connected` event taken.
    static func connected(_ rig: Rig, maxPayload: Int = 1_000_000) async -> (EmbeddedEngineIOServer, SocketIOEvents.AsyncIterator) {
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.connect(maxPayload: maxPayload)
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        return (server, events)
    }

    /// A packet over the server's `maxPayload` throws `payload_too_large` and nothing of it
    /// goes out; one of exactly `maxPayload` bytes goes out.
    @Test("an emit over maxPayload throws payload_too_large; one at the limit goes out")
    func maxPayload() async throws {
        let rig = try Rig()
        let (server, _) = await Self.connected(rig, maxPayload: 20)
        let fits = String(repeating: "x", count: 10)  // 42["e","xxxxxxxxxx"] is 20 bytes
        await #expect { try await rig.socket.emit("e", fits + "x") } throws: { ($0 as? SocketIOError)?.code == .payloadTooLarge }
        try await rig.socket.emit("e", fits)
        #expect(await server.waitForSent(2) == ["40", #"42["e","\#(fits)"]"#])
        rig.socket.realtime.close()
    }

    /// An attachment over the server's `maxPayload` throws `payload_too_large` too, and
    /// neither the packet nor the attachment goes out.
    @Test("an attachment over maxPayload throws payload_too_large; nothing of the emit goes out")
    func attachmentOverMaxPayload() async throws {
        let rig = try Rig()
        let (server, _) = await Self.connected(rig, maxPayload: 100)
        await #expect { try await rig.socket.emit("up", SocketIOBinary(Array(repeating: 1, count: 101))) } throws: {
            ($0 as? SocketIOError)?.code == .payloadTooLarge
        }
        try await rig.socket.emit("up", SocketIOBinary(Array(repeating: 1, count: 100)))
        #expect(await server.waitForSent(3) == ["40", #"451-["up",{"_placeholder":true,"num":0}]"#, "<100 bytes>"])
        rig.socket.realtime.close()
    }

    /// `acknowledge(_:_:)` answers an event the server emitted with an id: an ACK with that
    /// id on the event's namespace, a BINARY_ACK with attachments; an event without an id is
    /// not answered.
    @Test("acknowledge answers on the event's namespace with its id, binary too; an event without an id gets nothing")
    func acknowledge() async throws {
        let rig = try Rig { $0.namespaces = ["/", "/admin"] }
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.connect(sids: ["/": "a", "/admin": "b"])
        #expect(SocketIOClientTests.connection(await events.next()) != nil)
        server.text(#"42["plain"]"#)
        server.text(#"425["ask",1]"#)
        server.text(#"42/admin,6["ask"]"#)
        for _ in 0..<3 {
            let message = try #require(SocketIOClientTests.message(await events.next()))
            if message.name == "plain" { try await rig.socket.acknowledge(message, "ignored") }
            if message.namespace == "/" { try await rig.socket.acknowledge(message, "yes", 2) }
            if message.namespace == "/admin" { try await rig.socket.acknowledge(message, SocketIOBinary([7])) }
        }
        #expect(await server.waitForSent(5) == [
            "40", "40/admin,", #"435["yes",2]"#, #"461-/admin,6[{"_placeholder":true,"num":0}]"#, "<1 bytes>",
        ])
        rig.socket.realtime.close()
    }

    /// An acknowledgement that comes as a BINARY_ACK hands its attachments to the caller.
    @Test("a BINARY_ACK answer carries its attachments to emitWithAck")
    func binaryAck() async throws {
        let rig = try Rig()
        let (server, _) = await Self.connected(rig)
        let call = Task { [socket = rig.socket] in try await socket.emitWithAck("get") }
        #expect(await server.waitForSent(2).last == #"420["get"]"#)
        server.text(#"461-0["meta",{"_placeholder":true,"num":0}]"#)
        server.binary([5, 6])
        let answer = try await call.value
        #expect(try answer.decode(String.self) == "meta")
        #expect(answer.binary(at: 1) == [5, 6])
        rig.socket.realtime.close()
    }

    /// Under fail-fast (the default), an emit while disconnected throws the client's
    /// `not_connected` and never goes out.
    @Test("fail-fast: an emit while disconnected throws not_connected and never goes out")
    func failFastWhileDisconnected() async throws {
        let rig = try Rig()
        var (first, events) = await Self.connected(rig)
        first.end()
        #expect(SocketIOClientTests.disconnection(await events.next())?.willReconnect == true)
        await rig.waitToRetry()
        await #expect { try await rig.socket.emit("lost", 1) } throws: { ($0 as? RealtimeError)?.code == .notConnected }
        rig.loop.advanceTime(by: .seconds(1))
        let second = await rig.connect(2)
        #expect(SocketIOClientTests.connection(await events.next())?.attempt == 2)
        try await rig.socket.emit("after")
        #expect(await second.waitForSent(2) == ["40", #"42["after"]"#])
        rig.socket.realtime.close()
    }

    /// The URL is the given one with `path` in place of its path and
    /// `EIO=4&transport=websocket` in its query, its other query items kept.
    @Test("the URL: the configured path, the other query items kept, EIO=4&transport=websocket replacing any given")
    func url() async throws {
        let rig = try Rig(url: URL(string: "ws://127.0.0.1:9/app?token=abc&EIO=3&transport=polling")!) { $0.path = "/chat/" }
        let server = await rig.servers.attempt(1)
        #expect(server.request.url.absoluteString == "ws://127.0.0.1:9/chat/?token=abc&EIO=4&transport=websocket")
        rig.socket.realtime.close()
    }
}
#endif

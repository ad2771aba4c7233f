#if os(Linux)
import Foundation
import Realtime
@_spi(Transport) import RealtimeSocketIO
import RealtimeTestSupport
@_spi(Transport) import RealtimeTesting
import Testing

/// `SocketIOClient` over the production WebSocket connection on the embedded stack, the test
/// playing each attempt's Engine.IO server on its byte stream and moving the loop's time: the
/// handshake's bytes, the re-join hook before the outbox, heartbeats, close codes,
/// acknowledgements, binary attachments and connection state recovery, with no socket and no
/// sleep.
@Suite("SocketIOClient", .timeLimit(.minutes(2)))
struct SocketIOClientTests {
    struct Rig {
        let socket: SocketIOClient
        let servers = EmbeddedEngineIOServer.Factory()
        var loop: ManualLoop { servers.network.loop }

        init(url: URL = URL(string: "ws://127.0.0.1:9/")!, _ configure: (inout SocketIOClient.Configuration) -> Void = { _ in }) throws {
            var c = SocketIOClient.Configuration()
            c.client.backoff = .exponential(jitter: .none)
            c.client.networkMonitor = nil
            c.client.heartbeat = .disabled
            c.client.idleTimeout = nil  // the loop's timers are then Socket.IO's alone
            configure(&c)
            socket = try SocketIOClient(
                url: url, configuration: c, clock: servers.network.loop,
                transportFactory: servers.network.transportFactory(c.client))
        }

        /// Waits until the client waits to retry, then moves the loop's time by `d`.
        func advancePastTheBackoff(by d: Duration) async {
            await waitToRetry()
            loop.advanceTime(by: d)
        }

        /// Waits until the client waits to retry and its timer is armed (moving the time
        /// before would leave the timer behind it).
        func waitToRetry() async {
            let state = await servers.network.waitForState(of: socket.realtime) { if case .waitingToRetry = $0 { true } else { false } }
            guard case .waitingToRetry(let delay)? = state else { return }
            await loop.waitForTimer(dueAt: loop.now.advanced(by: delay))
        }

        /// Attempt `n`'s server, through the open packet and every namespace's CONNECT answer.
        func connect(
            _ n: Int = 1, sids: [String: String] = ["/": "a"], pid: String? = nil, pingInterval: Int = 25000, maxPayload: Int = 1_000_000
        ) async -> EmbeddedEngineIOServer {
            let server = await servers.attempt(n)
            server.handshake(pingInterval: pingInterval, maxPayload: maxPayload)
            await server.waitForSent(sids.count)
            for (namespace, sid) in sids.sorted(by: { $0.key < $1.key }) {
                let prefix = namespace == "/" ? "40" : "40\(namespace),"
                server.text(prefix + (pid.map { #"{"sid":"\#(sid)","pid":"\#($0)"}"# } ?? #"{"sid":"\#(sid)"}"#))
            }
            return server
        }
    }

    /// The next event that is not a `connected`/`disconnected` of no interest, within the
    /// suite's limit.
    static func next(_ it: inout SocketIOEvents.AsyncIterator) async -> SocketIOEvent? {
        await it.next()
    }

    static func connection(_ event: SocketIOEvent?) -> SocketIOConnection? {
        if case .connected(let c)? = event { return c }
        return nil
    }

    static func message(_ event: SocketIOEvent?) -> SocketIOMessage? {
        if case .event(let m)? = event { return m }
        return nil
    }

    static func disconnection(_ event: SocketIOEvent?) -> SocketIODisconnection? {
        if case .disconnected(let d)? = event { return d }
        return nil
    }

    @Test("handshake: the Engine.IO URL, then 40 per namespace with its auth, then connected with each sid")
    func handshake() async throws {
        let rig = try Rig { c in
            c.namespaces = ["/", "/admin"]
            c.auth = { namespace in namespace == "/admin" ? ["token": "t"] : nil }
        }
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.connect(sids: ["/": "a", "/admin": "b"])
        #expect(server.request.url.absoluteString == "ws://127.0.0.1:9/socket.io/?EIO=4&transport=websocket")
        #expect(server.sentTexts == ["40", #"40/admin,{"token":"t"}"#])
        let connection = Self.connection(await events.next())
        #expect(connection?.sids == ["/": "a", "/admin": "b"])
        #expect(connection?.engineSID == "eio1" && connection?.attempt == 1 && connection?.recovered == [])
        rig.socket.realtime.close()
    }

    @Test("the re-join hook's emits (and its ack) go out before the outbox; the ack is not an event")
    func rejoinBeforeOutbox() async throws {
        let rig = try Rig { c in
            c.client.sendPolicy = .queue()
            c.onConnect = { handshake in
                let answer = try await handshake.emitWithAck("join", "lobby")
                #expect(try answer.decode(String.self) == "joined")
            }
        }
        let socket = rig.socket
        let queued = Task { try await socket.emit("chat", "while away") }
        var events = socket.events.makeAsyncIterator()
        let server = await rig.connect()
        await server.waitForSent(2)
        #expect(server.sentTexts == ["40", #"420["join","lobby"]"#], "the outbox waits for the hook")
        server.text(#"42["chat","before the ack"]"#)
        server.text(#"430["joined"]"#)
        try await queued.value
        #expect(await server.waitForSent(3) == ["40", #"420["join","lobby"]"#, #"42["chat","while away"]"#])
        #expect(Self.connection(await events.next()) != nil)
        #expect(Self.message(await events.next())?.name == "chat", "what the hook passed over follows the connection")
        socket.realtime.close()
    }

    @Test("a ping is answered 3 and never delivered; no ping within pingInterval + pingTimeout ends the attempt, close 1001, and it reconnects")
    func heartbeat() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect(pingInterval: 1000)
        #expect(Self.connection(await events.next()) != nil)
        await rig.loop.waitForTimers(1)  // the heartbeat's deadline
        rig.loop.advanceTime(by: .milliseconds(1000))
        first.text("2")
        #expect(await first.waitForSent(2).last == "3")
        // The first deadline (t = 21 s) has passed, the one the ping armed has not.
        rig.loop.advanceTime(by: .seconds(20) + .milliseconds(500))
        first.text(#"42["alive"]"#)
        #expect(Self.message(await events.next())?.name == "alive", "the ping moved the deadline")
        rig.loop.advanceTime(by: .milliseconds(500))
        #expect(await first.waitForClose() == 1001)
        let end = Self.disconnection(await events.next())
        #expect(end?.error?.underlying?.code == .heartbeatTimeout)
        #expect(end?.willReconnect == true)
        await rig.advancePastTheBackoff(by: .seconds(1))
        _ = await rig.connect(2)
        #expect(Self.connection(await events.next())?.attempt == 2)
        rig.socket.realtime.close()
    }

    @Test("CONNECT_ERROR is final: the client stops with connect_refused and the server's data, no second attempt")
    func connectRefused() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.servers.attempt(1)
        server.handshake()
        await server.waitForSent(1)
        server.text(#"44{"message":"unauthorized"}"#)
        let end = Self.disconnection(await events.next())
        #expect(end?.error?.code == .connectRefused && end?.willReconnect == false)
        #expect(end?.error?.data == #"{"message":"unauthorized"}"#)
        let description = end?.error.map { "\($0)" } ?? ""
        #expect(!description.contains("unauthorized"), "the server's words stay out of the description")
        #expect(await events.next() == nil)
        #expect(rig.servers.count == 1)
    }

    @Test("acks: the answer once; an ack for an id never sent, or a second one, is counted and ignored")
    func acks() async throws {
        let rig = try Rig()
        let socket = rig.socket
        var events = socket.events.makeAsyncIterator()
        let server = await rig.connect()
        #expect(Self.connection(await events.next()) != nil)
        let call = Task { try await socket.emitWithAck("echo", 1) }
        #expect(await server.waitForSent(2).last == #"420["echo",1]"#)
        server.text("4399[1]")
        server.text("430[41]")
        server.text("430[42]")
        #expect(try await call.value.decode(Int.self) == 41)
        server.text(#"42["sync"]"#)
        #expect(Self.message(await events.next())?.name == "sync")
        #expect(socket.unmatchedAcks == 2)
        socket.realtime.close()
    }

    @Test("an ack that never comes: ack_timeout at the timeout; a connection that ends first: connection_lost")
    func ackFailures() async throws {
        let rig = try Rig()
        let socket = rig.socket
        var events = socket.events.makeAsyncIterator()
        let server = await rig.connect()
        #expect(Self.connection(await events.next()) != nil)
        let late = Task { try await socket.emitWithAck("slow", timeout: .seconds(5)) }
        await server.waitForSent(2)
        await rig.loop.waitForTimers(2)  // the heartbeat's deadline and the ack's timeout
        rig.loop.advanceTime(by: .seconds(5))
        await #expect { try await late.value } throws: { ($0 as? SocketIOError)?.code == .ackTimeout }
        let lost = Task { try await socket.emitWithAck("doomed") }
        await server.waitForSent(3)
        server.end()
        await #expect { try await lost.value } throws: { ($0 as? SocketIOError)?.code == .connectionLost }
        socket.realtime.close()
    }

    @Test("binary: an event's attachments replace its placeholders; an emit's go out after its packet")
    func binary() async throws {
        let rig = try Rig()
        let socket = rig.socket
        var events = socket.events.makeAsyncIterator()
        let server = await rig.connect()
        #expect(Self.connection(await events.next()) != nil)
        server.text(#"452-["file","name",{"_placeholder":true,"num":1},{"_placeholder":true,"num":0}]"#)
        server.binary([1, 2, 3])
        server.binary([4])
        let message = Self.message(await events.next())
        #expect(message?.arguments.binary(at: 1) == [4] && message?.arguments.binary(at: 2) == [1, 2, 3])
        #expect(message?.arguments.binary(at: 0) == nil)
        #expect(try message?.arguments.decode(String.self) == "name")
        try await socket.emit("up", SocketIOBinary([9, 9]))
        #expect(await server.waitForSent(3).suffix(2) == [#"451-["up",{"_placeholder":true,"num":0}]"#, "<2 bytes>"])
        socket.realtime.close()
    }

    @Test("attachment counts: over the bound stops the client with message_too_large (close 1009), as any size limit; a stray binary reconnects after protocol_violation (close 1002)")
    func hostileAttachments() async throws {
        let limited = try Rig { $0.maxAttachments = 2 }
        var events = limited.socket.events.makeAsyncIterator()
        let first = await limited.connect()
        #expect(Self.connection(await events.next()) != nil)
        first.text(#"453-["f"]"#)
        let end = Self.disconnection(await events.next())
        #expect(end?.error?.underlying?.code == .messageTooLarge && end?.willReconnect == false)
        #expect(first.closeCode == 1009)

        let rig = try Rig()
        var more = rig.socket.events.makeAsyncIterator()
        let second = await rig.connect()
        #expect(Self.connection(await more.next()) != nil)
        second.binary([1])
        let violation = Self.disconnection(await more.next())
        #expect(violation?.error?.underlying?.code == .protocolViolation && violation?.willReconnect == true)
        #expect(second.closeCode == 1002)
        await rig.advancePastTheBackoff(by: .seconds(1))
        _ = await rig.connect(2)
        #expect(Self.connection(await more.next())?.attempt == 2)
        limited.socket.realtime.close()
        rig.socket.realtime.close()
    }

    @Test("recovery: with a pid the next CONNECT sends pid and the last offset; the same pid back means recovered")
    func recovery() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let first = await rig.connect(pid: "p1")
        #expect(Self.connection(await events.next())?.recovered == [])
        first.text(#"42["tick",1,"o1"]"#)
        first.text(#"42["tick",2,"o2"]"#)
        #expect(Self.message(await events.next())?.offset == "o1")
        #expect(Self.message(await events.next())?.offset == "o2")
        first.end()
        #expect(Self.disconnection(await events.next())?.willReconnect == true)
        await rig.advancePastTheBackoff(by: .seconds(1))
        let second = await rig.servers.attempt(2)
        second.handshake()
        #expect(await second.waitForSent(1) == [#"40{"pid":"p1","offset":"o2"}"#])
        second.text(#"40{"sid":"a2","pid":"p1"}"#)
        #expect(Self.connection(await events.next())?.recovered == ["/"])
        #expect(rig.socket.realtime.lastEventID == "o2", "the client's resume cursor holds the offset too")
        rig.socket.realtime.close()
    }

    @Test("close(): DISCONNECT for each namespace, then the WebSocket closes 1000; the events end")
    func close() async throws {
        let rig = try Rig()
        var events = rig.socket.events.makeAsyncIterator()
        let server = await rig.connect()
        #expect(Self.connection(await events.next()) != nil)
        let closing = Task { await rig.socket.close() }
        #expect(await server.waitForClose() == 1000)
        await closing.value
        #expect(server.sentTexts.last == "41")
        await #expect { try await rig.socket.emit("late") } throws: { ($0 as? SocketIOError)?.code == .closed }
    }

    @Test("no open packet: the handshake runs out of time (open_hook_failed) and the client retries with backoff")
    func noOpenPacket() async throws {
        let rig = try Rig { $0.client.onOpenTimeout = .seconds(3) }
        let server = await rig.servers.attempt(1)
        server.open()
        await rig.loop.waitForTimers(1)  // the on-open hook's deadline
        rig.loop.advanceTime(by: .seconds(3))
        await server.waitForClose()
        await rig.waitToRetry()
        #expect(rig.servers.count == 1, "the retry waits for its backoff")
        rig.loop.advanceTime(by: .seconds(1))
        _ = await rig.servers.attempt(2)
        #expect(rig.socket.realtime.statistics.errorsByClass[.openHook] == 1)
        rig.socket.realtime.close()
    }
}
#endif

import Foundation
import Realtime
import RealtimeSocketIO
import RealtimeTestSupport
import Testing

/// `SocketIOClient` against python-socketio's `AsyncServer` (`Tests/Peers/socketio_server.py`,
/// uvicorn): rooms joined by the re-join hook across a server restart, connection state
/// recovery across a restart with the values lost and duplicated counted, auth, acks both
/// ways, binary attachments both ways.
@Suite("Socket.IO against python-socketio", .timeLimit(.minutes(4)), .serialized)
struct SocketIOPythonServerTests {
    static let script = "socketio_server.py"

    static func configuration(_ configure: (inout SocketIOClient.Configuration) -> Void = { _ in }) -> SocketIOClient.Configuration {
        var c = SocketIOClient.Configuration()
        c.client.backoff = .exponential(initial: .milliseconds(100), maximum: .milliseconds(500), jitter: .none)
        c.client.networkMonitor = nil
        configure(&c)
        return c
    }

    /// The chat of the article: the outbox on, the room joined by the re-join hook. Lines
    /// emitted while the server is down wait in the outbox and reach the room after the
    /// join: every line comes back once. Without the hook (joining on `.connected`), the
    /// queued lines reach the server before the join and are lost.
    @Test("chat with the outbox across a server restart: queued emits arrive after the room is re-joined", arguments: [true, false])
    func chatAcrossRestart(rejoinInHook: Bool) async throws {
        var peer = try await PythonPeer.start(script: Self.script)
        defer { peer.terminate() }
        let port = peer.port
        let socket = try SocketIOClient(url: peer.url(scheme: "ws"), configuration: Self.configuration { c in
            c.client.sendPolicy = .queue()
            if rejoinInHook {
                c.onConnect = { handshake in try await handshake.emitWithAck("join", "lobby") }
            }
        })
        var received: [String] = []
        var sentWhileDown: Task<Void, any Error>?
        loop: for await event in socket.events {
            switch event {
            case .connected:
                if !rejoinInHook { _ = try await socket.emitWithAck("join", "lobby") }
                if let queued = sentWhileDown, !rejoinInHook {
                    // The queued lines went out before the join: what comes back of them
                    // has come by the time a later ack does.
                    try await queued.value
                    _ = try await socket.emitWithAck("echo", "sync")
                    break loop
                }
                if sentWhileDown == nil, received.isEmpty {
                    for i in 1...70 { try await socket.emit("chat", "line \(i)") }
                }
            case .event(let message) where message.name == "chat":
                received.append(try message.arguments.decode(String.self))
                if received.count == 70, sentWhileDown == nil {
                    await peer.stop()
                    sentWhileDown = Task { for i in 71...140 { try await socket.emit("chat", "line \(i)") } }
                    peer = try await PythonPeer.start(script: Self.script, arguments: ["--port", "\(port)"])
                }
                if received.count == 140 { break loop }
            default:
                break
            }
        }
        try await sentWhileDown?.value
        let expected = (1...140).map { "line \($0)" }
        let lost = Set(expected).subtracting(received).count
        let duplicated = received.count - Set(received).count
        print("SocketIO chat (re-join \(rejoinInHook ? "in the hook" : "on connected")): \(received.count) of 140 back, lost \(lost), duplicated \(duplicated)")
        #expect(duplicated == 0)
        if rejoinInHook {
            #expect(lost == 0 && received == expected)
        } else {
            #expect(lost > 0, "without the hook the queued lines beat the join")
        }
        await socket.close()
        await peer.stop()
    }

    /// Connection state recovery across a restart of the server (its sessions and feed in a
    /// state file, like a persistent adapter): the client sends its pid and the offset of
    /// the last value it received, the server replays what followed (the values broadcast
    /// at its start before anyone could join included), and no value is lost or repeated.
    @Test("feed with connection state recovery across a server restart: 0 lost, 0 duplicated")
    func feedRecovery() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("socketio-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let feed = ["--state", state, "--feed-count", "400", "--feed-interval", "0.01"]
        var peer = try await PythonPeer.start(script: Self.script, arguments: feed)
        defer { peer.terminate() }
        let port = peer.port
        let socket = try SocketIOClient(url: peer.url(scheme: "ws"), configuration: Self.configuration { c in
            c.namespaces = ["/feed"]
            c.onConnect = { handshake in
                if !handshake.connection.recovered.contains("/feed") {
                    try await handshake.emitWithAck("subscribe", namespace: "/feed")
                }
            }
        })
        var values: [Int] = []
        var recoveries = 0
        var restarted = false
        loop: for await event in socket.events {
            switch event {
            case .connected(let connection):
                recoveries += connection.recovered.contains("/feed") ? 1 : 0
            case .event(let message) where message.name == "tick":
                let value = try message.arguments.decode(Int.self)
                values.append(value)
                #expect(message.offset == String(value))
                if values.count == 50, !restarted {
                    restarted = true
                    await peer.stop()
                    peer = try await PythonPeer.start(script: Self.script, arguments: feed + ["--port", "\(port)", "--burst", "20"])
                }
                if value == 400 { break loop }
            default:
                break
            }
        }
        let first = try #require(values.first)
        let expected = Array(first...400)
        let lost = Set(expected).subtracting(values).count
        let duplicated = values.count - Set(values).count
        print("SocketIO feed recovery: \(values.count) values from \(first), lost \(lost), duplicated \(duplicated), recoveries \(recoveries)")
        #expect(recoveries == 1)
        #expect(lost == 0 && duplicated == 0)
        #expect(values == values.sorted(), "in order")
        await socket.close()
        await peer.stop()
    }

    @Test("auth: the right token joins /secure and the server sees it; a wrong one is refused for good")
    func auth() async throws {
        let peer = try await PythonPeer.start(script: Self.script)
        defer { peer.terminate() }
        let good = try SocketIOClient(url: peer.url(scheme: "ws"), configuration: Self.configuration { c in
            c.namespaces = ["/", "/secure"]
            c.auth = { namespace in namespace == "/secure" ? ["token": "good"] : nil }
        })
        _ = try await good.realtime.waitUntilOpen(timeout: .seconds(30))
        let seen = try await good.emitWithAck("whoami", namespace: "/secure")
        #expect(try seen.decode([String: String].self) == ["token": "good"])
        await good.close()

        let bad = try SocketIOClient(url: peer.url(scheme: "ws"), configuration: Self.configuration { c in
            c.namespaces = ["/secure"]
            c.auth = { _ in ["token": "bad"] }
        })
        var ends: [SocketIODisconnection] = []
        for await event in bad.events {
            if case .disconnected(let d) = event { ends.append(d) }
        }
        #expect(ends.count == 1 && ends.first?.error?.code == .connectRefused && ends.first?.willReconnect == false)
        #expect(ends.first?.error?.data?.contains("unauthorized") == true)
        #expect(bad.realtime.statistics.attempts == 1)
        await peer.stop()
    }

    @Test("acks both ways and binary both ways: echo with attachments, the server's call answered, a two-attachment event")
    func acksAndBinary() async throws {
        let peer = try await PythonPeer.start(script: Self.script)
        defer { peer.terminate() }
        let socket = try SocketIOClient(url: peer.url(scheme: "ws"), configuration: Self.configuration())
        _ = try await socket.realtime.waitUntilOpen(timeout: .seconds(30))
        let bytes = (0..<100_000).map { UInt8($0 % 251) }
        let echo = try await socket.emitWithAck("echo", SocketIOBinary(bytes), "text", 3)
        #expect(echo.binary(at: 0) == bytes)
        #expect(try echo.decode(String.self, at: 1) == "text" && echo.decode(Int.self, at: 2) == 3)
        try await socket.emit("shout", "hi")
        try await socket.emit("blob", 70_000)
        var blob: SocketIOMessage?
        for await event in socket.events {
            guard case .event(let message) = event else { continue }
            if message.name == "ask" {
                #expect(message.ackID != nil)
                try await socket.acknowledge(message, "yes")
            } else if message.name == "blob" {
                blob = message
            }
            if blob != nil, try await socket.emitWithAck("answers").decode([String].self) == ["yes"] { break }
        }
        #expect(blob?.arguments.binary(at: 0)?.count == 70_000 && blob?.arguments.binary(at: 1) == [0])
        #expect(socket.unmatchedAcks == 0)
        await socket.close()
        await peer.stop()
    }
}
